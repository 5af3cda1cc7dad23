package board

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/seams"
)

// mandateTasks tells mandate administration (modules/mandates) about the
// tasks hanging on mandates, through seams.MandateTasksSeam.
type mandateTasks struct{}

// OpenTasksUnder lists the open tasks whose own, assignee or delegated
// mandate is one of ids, oldest first.
func (mandateTasks) OpenTasksUnder(ctx context.Context, tx bun.IDB, ids []string) ([]seams.TaskBrief, error) {
	out := []seams.TaskBrief{}
	if len(ids) == 0 {
		return out, nil
	}
	err := tx.NewRaw(`SELECT id::text AS id, title, status, assignee FROM tasks
		WHERE status IN ('submitted', 'working', 'input_required', 'auth_required')
		  AND (mandate_id = ANY(?::uuid[]) OR assignee_mandate_id = ANY(?::uuid[]) OR delegated_mandate_id = ANY(?::uuid[]))
		ORDER BY created_at, id`, pgdialect.Array(ids), pgdialect.Array(ids), pgdialect.Array(ids)).Scan(ctx, &out)
	return out, err
}

// DelegatedFor returns, for each of ids delegated with a task, the first
// task it was delegated for.
func (mandateTasks) DelegatedFor(ctx context.Context, tx bun.IDB, ids []string) (map[string]seams.TaskBrief, error) {
	out := map[string]seams.TaskBrief{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		seams.TaskBrief
		MandateID string `bun:"mandate_id"`
	}
	err := tx.NewRaw(`SELECT DISTINCT ON (delegated_mandate_id) delegated_mandate_id::text AS mandate_id,
			id::text AS id, title, status, assignee
		FROM tasks WHERE delegated_mandate_id = ANY(?::uuid[])
		ORDER BY delegated_mandate_id, created_at`, pgdialect.Array(ids)).Scan(ctx, &rows)
	for _, r := range rows {
		out[r.MandateID] = r.TaskBrief
	}
	return out, err
}
