package board

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// The task_messages rows of a task's thread, in bun's dialect (?).

// insertMessage stores one message; exactly one of fromAgent and fromHuman
// is set, and a nil to is the people.
func (store) insertMessage(ctx context.Context, tx bun.IDB, org, taskID string, fromAgent, fromHuman, to *string, body string) (int64, error) {
	var id int64
	err := tx.NewRaw(`INSERT INTO task_messages (org_id, task_id, from_agent, from_human, to_agent, body) VALUES (?, ?, ?, ?, ?, ?)
		RETURNING id`, org, taskID, fromAgent, fromHuman, to, body).Scan(ctx, &id)
	return id, err
}

// agentMessages counts the messages agents sent each other on a task.
func (store) agentMessages(ctx context.Context, tx bun.IDB, taskID string) (int, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM task_messages WHERE task_id = ? AND from_agent IS NOT NULL
		AND to_agent IS NOT NULL`, taskID).Scan(ctx, &n)
	return n, err
}

// thread returns a task's first 200 messages, oldest first.
func (store) thread(ctx context.Context, tx bun.IDB, taskID string) ([]TaskMessage, error) {
	var rows []TaskMessage
	err := tx.NewRaw(`SELECT m.id, m.task_id::text AS task_id, m.from_agent, m.from_human, m.to_agent, m.body,
		m.created_at, m.read_at FROM task_messages m WHERE m.task_id = ? ORDER BY m.id LIMIT 200`, taskID).Scan(ctx, &rows)
	return rows, err
}

// markThreadRead marks the messages to agent on a task read.
func (store) markThreadRead(ctx context.Context, tx bun.IDB, taskID, agent string) error {
	_, err := tx.ExecContext(ctx, `UPDATE task_messages SET read_at = now() WHERE task_id = ? AND to_agent = ? AND read_at IS NULL`,
		taskID, agent)
	return err
}

// projectAgent reports whether agent is an agent of project that is not banned.
func (store) projectAgent(ctx context.Context, tx bun.IDB, agent, project string) (bool, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id = ? AND ap.project_id = ? AND a.status <> 'banned'`, agent, project).Scan(ctx, &n)
	return n > 0, err
}

// capNoticed reports whether the people were told (a question notification
// in any of notices' texts) that agents used up task taskID's messages;
// the notices of one task take turns, so it is told once.
func (store) capNoticed(ctx context.Context, tx bun.IDB, taskID string, notices []string) (bool, error) {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, "message-cap:"+taskID); err != nil {
		return false, fmt.Errorf("board.checkCap: %w", err)
	}
	var told int
	err := tx.NewRaw(`SELECT count(*) FROM notifications WHERE task_id = ? AND kind = 'question' AND detail IN (?)`,
		taskID, bun.List(notices)).Scan(ctx, &told)
	return told > 0, err
}
