package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
)

// The task_messages rows the message service reads and writes.

// insertMessage stores one message; exactly one of fromAgent and fromHuman
// is set, and a nil to is the people.
func insertMessage(ctx context.Context, tx bun.IDB, org, taskID string, fromAgent, fromHuman, to *string, body string) (int64, error) {
	var id int64
	err := tx.NewRaw(`INSERT INTO task_messages (org_id, task_id, from_agent, from_human, to_agent, body) VALUES (?, ?, ?, ?, ?, ?)
		RETURNING id`, org, taskID, fromAgent, fromHuman, to, body).Scan(ctx, &id)
	return id, err
}

// agentMessages counts the messages agents sent each other on a task.
func agentMessages(ctx context.Context, tx bun.IDB, taskID string) (int, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM task_messages WHERE task_id = ? AND from_agent IS NOT NULL
		AND to_agent IS NOT NULL`, taskID).Scan(ctx, &n)
	return n, err
}

// unansweredToPeople counts the messages agents sent the people on a task
// since a person last wrote on it.
func unansweredToPeople(ctx context.Context, tx bun.IDB, taskID string) (int, error) {
	var n int
	h, err := db.Handle(tx)
	if err != nil {
		return 0, err
	}
	rows, err := h.QueryContext(ctx, unansweredToPeopleSQL, taskID)
	if err == nil {
		err = db.ScanOne(rows, &n)
	}
	return n, err
}

// unansweredToPeopleSQL counts the messages agents sent the people on task
// $1 since a person last wrote on it.
const unansweredToPeopleSQL = `SELECT count(*) FROM task_messages WHERE task_id = $1::uuid AND from_agent IS NOT NULL
	AND to_agent IS NULL AND id > coalesce((SELECT max(id) FROM task_messages WHERE task_id = $1::uuid
	AND from_human IS NOT NULL), 0)`

// thread returns a task's first 200 messages, oldest first.
func thread(ctx context.Context, tx bun.IDB, taskID string) ([]messageRow, error) {
	var rows []messageRow
	err := tx.NewRaw(`SELECT m.id, m.task_id::text AS task_id, m.from_agent, m.from_human, m.to_agent, m.body,
		m.created_at, m.read_at FROM task_messages m WHERE m.task_id = ? ORDER BY m.id LIMIT 200`, taskID).Scan(ctx, &rows)
	return rows, err
}

// markThreadRead marks the messages to agent on a task read.
func markThreadRead(ctx context.Context, tx bun.IDB, taskID, agent string) error {
	_, err := tx.ExecContext(ctx, `UPDATE task_messages SET read_at = now() WHERE task_id = ? AND to_agent = ? AND read_at IS NULL`,
		taskID, agent)
	return err
}

// projectAgent reports whether agent is an agent of project that is not banned.
func projectAgent(ctx context.Context, tx bun.IDB, agent, project string) (bool, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id = ? AND ap.project_id = ? AND a.status <> 'banned'`, agent, project).Scan(ctx, &n)
	return n > 0, err
}
