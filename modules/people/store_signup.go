package people

import (
	"context"

	"github.com/uptrace/bun"
)

// The store's part of becoming a person, in bun's dialect: the lock one
// account's sign-up and acceptance take, and a new organization's roles.

// lockAccount serialises, until tx ends, what one account does to become a
// person: sign-up and accepting an invitation.
func lockAccount(ctx context.Context, tx bun.Tx, issuer, sub string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, "signup:"+issuer+":"+sub)
	return err
}

// seedRoles gives organization org a copy of every role of role_templates.
func seedRoles(ctx context.Context, tx bun.IDB, org string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, description, client, actions, limits,
			delegations, mandate_days, token_days, settings, instructions, position)
		SELECT ?, id, name, description, client, actions, limits, delegations, mandate_days, token_days, settings,
			instructions, position FROM role_templates`, org)
	return err
}
