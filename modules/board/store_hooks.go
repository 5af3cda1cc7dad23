package board

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// What Claude Code's hooks read and keep (hook_*.go), in bun's dialect (?).

// delegatedCandidate is the oldest task delegated to agent that it may
// claim with its delegated mandate in projects (not production, not
// frozen), a sender of allow's first; nil when there is none.
func (st store) delegatedCandidate(ctx context.Context, agent string, projects, allow []string) (*DelegatedTask, error) {
	var found []DelegatedTask
	if err := st.db.NewRaw(`SELECT t.id::text AS id, t.title, t.body, t.project_id, t.created_by,
			t.delegated_mandate_id::text AS delegated_mandate_id
		FROM tasks t JOIN projects p ON p.id = t.project_id
		WHERE t.delegate_to = ? AND t.status = 'submitted' AND t.assignee IS NULL AND NOT t.deferred
		  AND t.delegated_mandate_id IS NOT NULL AND t.project_id = ANY(?) AND NOT p.production AND NOT p.frozen
		ORDER BY t.created_by = ANY(?) DESC, t.created_at, t.id LIMIT 1`,
		agent, pgdialect.Array(projects), pgdialect.Array(allow)).Scan(ctx, &found); err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, nil
	}
	return &found[0], nil
}

// heldTasks are the working tasks agent holds, oldest claim first.
func (store) heldTasks(ctx context.Context, tx bun.IDB, agent string) ([]HeldTask, error) {
	out := []HeldTask{}
	err := tx.NewRaw(`SELECT id::text AS id, title, project_id, assignee_mandate_id::text AS assignee_mandate_id
		FROM tasks WHERE assignee = ? AND status = 'working' ORDER BY claimed_at, id`, agent).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("board.heldTasks: %w", err)
	}
	return out, nil
}

// sessionCursor is where agent's Claude Code session stands in the task
// changes it was told of; 0 for a new session.
func (st store) sessionCursor(ctx context.Context, agent, session string) (int64, error) {
	var cursor int64
	err := st.db.NewRaw(`SELECT coalesce(max(cursor), 0) FROM hook_cursors WHERE agent_id = ? AND session_id = ?`,
		agent, session).Scan(ctx, &cursor)
	return cursor, err
}

// moveSessionCursor moves agent's session's cursor to next, forgetting the
// cursors of sessions idle for 30 days.
func (st store) moveSessionCursor(ctx context.Context, agent, session string, next int64) error {
	_, err := st.db.ExecContext(ctx, `
		WITH pruned AS (DELETE FROM hook_cursors WHERE updated_at < now() - interval '30 days')
		INSERT INTO hook_cursors (agent_id, session_id, cursor) VALUES (?, ?, ?)
		ON CONFLICT (agent_id, session_id) DO UPDATE SET cursor = excluded.cursor, updated_at = now()`,
		agent, session, next)
	return err
}
