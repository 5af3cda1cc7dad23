package board

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// What the board reads of projects, in bun's dialect (?).

// notProduction returns those of projects that are not production, sorted:
// one query for every project's flag.
func (store) notProduction(ctx context.Context, tx bun.IDB, projects []string) ([]string, error) {
	var out []string
	err := tx.NewRaw(`SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM projects WHERE id = ANY(?) AND NOT production`,
		pgdialect.Array(projects)).Scan(ctx, pgdialect.Array(&out))
	return out, err
}
