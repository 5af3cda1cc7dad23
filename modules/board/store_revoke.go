package board

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The tasks a revocation stops, in bun's dialect (?).

// cancelUnder cancels every open task whose own, assignee or delegated
// mandate is one of ids, the subtree of revoked, and returns them.
func (store) cancelUnder(ctx context.Context, tx bun.IDB, revoked string, ids []string) ([]string, error) {
	var stopped []string
	err := tx.NewRaw(`UPDATE tasks SET status = 'canceled', assignee = NULL, assignee_mandate_id = NULL,
			result = jsonb_build_object('reason', 'mandate_revoked', 'mandate_id', ?::text)
		WHERE task_status_is_open(status)
		  AND (mandate_id = ANY(?::uuid[]) OR assignee_mandate_id = ANY(?::uuid[]) OR delegated_mandate_id = ANY(?::uuid[]))
		RETURNING id::text`, revoked, pgdialect.Array(ids), pgdialect.Array(ids), pgdialect.Array(ids)).Scan(ctx, &stopped)
	return stopped, err
}

// stoppedBy lists the tasks canceled because mandate was revoked, by id.
func (store) stoppedBy(ctx context.Context, tx bun.IDB, mandate string) ([]string, error) {
	var stopped []string
	err := tx.NewRaw(`SELECT id::text FROM tasks WHERE result->>'reason' = 'mandate_revoked'
		AND result->>'mandate_id' = ? ORDER BY id`, mandate).Scan(ctx, &stopped)
	return stopped, err
}

// closedWithLiveDelegation lists the closed tasks whose delegated mandate
// is not revoked.
func (store) closedWithLiveDelegation(ctx context.Context, tx bun.IDB) ([]string, error) {
	var ids []string
	err := tx.NewRaw(`SELECT t.id::text FROM tasks t JOIN mandates d ON d.id = t.delegated_mandate_id
		WHERE task_status_is_terminal(t.status) AND d.revoked_at IS NULL`).Scan(ctx, &ids)
	return ids, err
}
