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

// projectOrg is project's organization.
func (store) projectOrg(ctx context.Context, tx bun.IDB, project string) (string, error) {
	var org string
	err := tx.NewRaw(`SELECT org_id FROM projects WHERE id = ?`, project).Scan(ctx, &org)
	return org, err
}

// inOrg reports whether project is one of organization org's.
func (store) inOrg(ctx context.Context, tx bun.IDB, project, org string) (bool, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM projects WHERE id = ? AND org_id = ?`, project, org).Scan(ctx, &n)
	return n > 0, err
}
