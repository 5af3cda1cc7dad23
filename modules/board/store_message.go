package board

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
)

// The messages agents wait for and read, in pgx's dialect ($n).

// unreadFrom is the unread messages (m, with their tasks t) to agent in
// projects, only on task unless it is ”: the one definition that answers
// (unreadSQL) and readiness (pact_events, pact_wait) share. The arguments
// are the statement's placeholders for each value.
func unreadFrom(agent, projects, onTask string) string {
	return ` FROM task_messages m JOIN tasks t ON t.id = m.task_id
	WHERE m.to_agent = ` + agent + ` AND m.read_at IS NULL AND t.project_id = ANY(` + projects + `)
	  AND (` + onTask + ` = '' OR m.task_id::text = ` + onTask + `)`
}

// unreadSQL is the unread messages to $1 in projects $2, only on task $3
// unless it is ”, up to 50, oldest first (pact_list folds it into its
// one statement).
var unreadSQL = `SELECT m.id, m.task_id::text AS task_id, t.title AS task_title, m.from_agent,
		m.from_human, m.to_agent, m.body, m.created_at, m.read_at` + unreadFrom("$1", "$2", "$3") + `
	ORDER BY m.id LIMIT 50`

// unreadStep reads into out the unread messages to agent in projects (on
// every task), up to 50, oldest first.
func unreadStep(agent string, projects []string, out *[]TaskMessage) db.Step {
	return db.Step{SQL: `SELECT * FROM (` + unreadSQL + `) u ORDER BY id`, Args: []any{agent, projects, ""},
		Rows: func(_ *db.Tx, r pgx.Rows) error {
			var u TaskMessage
			_, err := pgx.ForEachRow(r, []any{&u.ID, &u.TaskID, &u.TaskTitle, &u.FromAgent, &u.FromHuman, &u.ToAgent,
				&u.Body, &u.CreatedAt, &u.ReadAt}, func() error {
				*out = append(*out, u)
				u = TaskMessage{}
				return nil
			})
			return err
		}}
}

// unread returns up to 50 unread messages to agent in projects, oldest
// first, only on task taskID unless it is "".
func (st store) unread(ctx context.Context, tx bun.IDB, agent string, projects []string, taskID string) ([]TaskMessage, error) {
	var rows []TaskMessage
	if err := st.db.Fetch(ctx, tx, &rows, `SELECT * FROM (`+unreadSQL+`) u ORDER BY id`, agent, projects, taskID); err != nil {
		return nil, fmt.Errorf("board.unreadMessages: %w", err)
	}
	return rows, nil
}

// anyUnread reports whether a message to agent in projects is unread, only
// on task taskID unless it is "".
func (st store) anyUnread(ctx context.Context, agent string, projects []string, taskID string) (bool, error) {
	var ready bool
	err := st.db.FetchInto(ctx, st.db, `SELECT EXISTS (SELECT 1`+unreadFrom("$1", "$2", "$3")+`)`,
		[]any{agent, projects, taskID}, &ready)
	return ready, err
}

// markRead marks messages ids read.
func (st store) markRead(ctx context.Context, tx bun.IDB, ids []int64) error {
	if _, err := st.db.Write(ctx, tx, `UPDATE task_messages SET read_at = now() WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("board.unreadMessages: %w", err)
	}
	return nil
}

// unansweredToPeopleSQL counts the messages agents sent the people on task
// $1 since a person last wrote on it.
const unansweredToPeopleSQL = `SELECT count(*) FROM task_messages WHERE task_id = $1::uuid AND from_agent IS NOT NULL
	AND to_agent IS NULL AND id > coalesce((SELECT max(id) FROM task_messages WHERE task_id = $1::uuid
	AND from_human IS NOT NULL), 0)`

// peopleCapLockSQL makes the messages to the people on one task ($1, as
// "people-cap:<task>") take turns.
const peopleCapLockSQL = `SELECT pg_advisory_xact_lock(hashtext($1))`

// unansweredToPeople counts, once the task's messages to the people take
// turns (peopleCapLockSQL), those agents sent since a person last wrote on
// it. The count is a statement of its own after the lock, so its snapshot
// is taken once the lock is held; both travel in one round trip. Only an
// agent's message is counted, and an agent's call runs in the kernel's
// *db.Tx (kernel.Call.Tx).
func (st store) unansweredToPeople(ctx context.Context, tx bun.IDB, taskID string) (int, error) {
	p, ok := tx.(*db.Tx)
	if !ok {
		return 0, fmt.Errorf("board.checkPeopleCap: an agent's message runs in its call's transaction, not a %T", tx)
	}
	var n int
	err := p.Pipeline(ctx, db.Step{SQL: peopleCapLockSQL, Args: []any{"people-cap:" + taskID}},
		db.Step{SQL: unansweredToPeopleSQL, Args: []any{taskID}, Rows: db.OneRow(&n)})
	if err != nil {
		return 0, fmt.Errorf("board.checkPeopleCap: %w", err)
	}
	return n, nil
}
