package board

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// An organization's approval rules (approval_actions), in bun's dialect (?).

// approvalRules lists org's approval rules, sorted.
func (store) approvalRules(ctx context.Context, tx bun.IDB, org string) ([]string, error) {
	out := []string{}
	err := tx.NewRaw(`SELECT action FROM approval_actions WHERE org_id = ? ORDER BY action`, org).Scan(ctx, &out)
	return out, err
}

// addApprovalRules adds actions to org's approval rules.
func (store) addApprovalRules(ctx context.Context, tx bun.IDB, org string, actions []string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO approval_actions (org_id, action) SELECT ?, unnest(?::text[])`,
		org, pgdialect.Array(actions))
	return err
}

// clearApprovalRules removes every approval rule of org.
func (store) clearApprovalRules(ctx context.Context, tx bun.IDB, org string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM approval_actions WHERE org_id = ?`, org)
	return err
}
