package identity

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// The reads other packages make of the principals' rows, so that only
// core/identity reads its tables (docs/architecture.md, "Table ownership").

// RequireActingPerson is RequirePerson for a caller that may name no one
// (a CLI flag left out). Refusal: forbidden (no one named, not registered,
// disabled, or below min).
func RequireActingPerson(ctx context.Context, tx bun.IDB, by string, min Role) (*Person, error) {
	if by == "" {
		return nil, errs.E(errs.Forbidden, "name the person acting")
	}
	return RequirePerson(ctx, tx, by, min)
}

// AgentOwner returns the person who owns agent and the agent's client.
// Refusal: not_found.
func AgentOwner(ctx context.Context, tx bun.IDB, agent string) (owner, client string, err error) {
	var rows []struct {
		Owner  string `bun:"owner"`
		Client string `bun:"client"`
	}
	if err := tx.NewRaw(`SELECT owner, client FROM agents WHERE id = ?`, agent).Scan(ctx, &rows); err != nil {
		return "", "", err
	}
	if len(rows) == 0 {
		return "", "", errs.E(errs.NotFound, "agent %s does not exist", agent)
	}
	return rows[0].Owner, rows[0].Client, nil
}

// FirstOwner returns the oldest active owner of organization org, or ""
// when it has none.
func FirstOwner(ctx context.Context, tx bun.IDB, org string) (string, error) {
	var ids []string
	err := tx.NewRaw(`SELECT id FROM humans WHERE org_id = ? AND role = 'owner' AND disabled_at IS NULL
		ORDER BY created_at, id LIMIT 1`, org).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return "", err
	}
	return ids[0], nil
}
