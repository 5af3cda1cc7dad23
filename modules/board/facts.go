package board

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/seams"
)

// The board answers what other modules need to know of its tasks through
// seams.BoardFacts, so none of them reads the tasks table
// (docs/architecture.md, "Table ownership").
var _ seams.BoardFacts = (*Module)(nil)

// OpenTaskCounts returns how many open tasks each of projectIDs has, 0 for
// a project with none. Open is task_status_is_open, defined once in
// migrations/010_table_owners.sql.
func (m *Module) OpenTaskCounts(ctx context.Context, tx bun.IDB, projectIDs []string) (map[string]int, error) {
	var rows []struct {
		ProjectID string `bun:"project_id"`
		N         int    `bun:"n"`
	}
	err := tx.NewRaw(`SELECT project_id, count(*) AS n FROM tasks
		WHERE project_id = ANY(?::text[]) AND task_status_is_open(status) GROUP BY project_id`,
		pgdialect.Array(projectIDs)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("board.OpenTaskCounts: %w", err)
	}
	out := make(map[string]int, len(projectIDs))
	for _, p := range projectIDs {
		out[p] = 0
	}
	for _, r := range rows {
		out[r.ProjectID] = r.N
	}
	return out, nil
}
