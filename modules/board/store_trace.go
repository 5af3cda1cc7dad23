package board

import (
	"context"

	"github.com/uptrace/bun/dialect/pgdialect"
)

// A task's trace as people read it (admin_trace.go), in bun's dialect (?).

// traceMandates reads the mandates of organization org among ids and their
// ancestors, by depth.
func (st store) traceMandates(ctx context.Context, org string, ids []string) ([]TraceMandate, error) {
	out := []TraceMandate{}
	err := st.db.NewRaw(`WITH RECURSIVE up AS (
			SELECT id, parent_id FROM mandates WHERE id = ANY(?::uuid[])
			UNION SELECT m.id, m.parent_id FROM mandates m JOIN up ON m.id = up.parent_id)
		SELECT m.id::text AS id, m.parent_id::text AS parent_id, m.issuer_kind, m.issuer, m.holder, m.scope, m.limits,
			m.delegations_left, m.depth, m.expires_at, m.revoked_at, m.created_at
		FROM mandates m JOIN agents a ON a.id = m.holder
		WHERE m.id IN (SELECT id FROM up) AND a.org_id = ?
		ORDER BY m.depth, m.created_at, m.id`, pgdialect.Array(ids), org).Scan(ctx, &out)
	return out, err
}

// traceMessages reads task taskID's thread in organization org, oldest
// first.
func (st store) traceMessages(ctx context.Context, org, taskID string) ([]TraceMessage, error) {
	out := []TraceMessage{}
	err := st.db.NewRaw(`SELECT id, from_agent, from_human, to_agent, body, created_at, read_at
		FROM task_messages WHERE task_id = ? AND org_id = ? ORDER BY id`, taskID, org).Scan(ctx, &out)
	return out, err
}
