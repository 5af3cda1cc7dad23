package board

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/seams"
)

// What other modules learn of the board's tasks (facts.go,
// mandate_reports.go), in bun's dialect (?).

// projectCount is how many open tasks a project has.
type projectCount struct {
	ProjectID string `bun:"project_id"`
	N         int    `bun:"n"`
}

// openTaskCounts counts the open tasks of each of projectIDs that has any.
func (store) openTaskCounts(ctx context.Context, tx bun.IDB, projectIDs []string) ([]projectCount, error) {
	var rows []projectCount
	err := tx.NewRaw(`SELECT project_id, count(*) AS n FROM tasks
		WHERE project_id = ANY(?::text[]) AND task_status_is_open(status) GROUP BY project_id`,
		pgdialect.Array(projectIDs)).Scan(ctx, &rows)
	return rows, err
}

// openTasksUnder lists the open tasks whose own, assignee or delegated
// mandate is one of ids, oldest first.
func (store) openTasksUnder(ctx context.Context, tx bun.IDB, ids []string) ([]seams.TaskBrief, error) {
	out := []seams.TaskBrief{}
	err := tx.NewRaw(`SELECT id::text AS id, title, status, assignee FROM tasks
		WHERE status IN ('submitted', 'working', 'input_required', 'auth_required')
		  AND (mandate_id = ANY(?::uuid[]) OR assignee_mandate_id = ANY(?::uuid[]) OR delegated_mandate_id = ANY(?::uuid[]))
		ORDER BY created_at, id`, pgdialect.Array(ids), pgdialect.Array(ids), pgdialect.Array(ids)).Scan(ctx, &out)
	return out, err
}

// delegatedFor returns, for each of ids delegated with a task, the first
// task it was delegated for.
func (store) delegatedFor(ctx context.Context, tx bun.IDB, ids []string) (map[string]seams.TaskBrief, error) {
	out := map[string]seams.TaskBrief{}
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
