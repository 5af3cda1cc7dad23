package board

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/sdk/errs"
)

// MaxApprovalRules bounds an organization's approval rules.
const MaxApprovalRules = 100

// DefaultApprovalRules are the approval rules an organization made by
// sign-up starts with (docs/specs/behavior.md §5.8).
var DefaultApprovalRules = []string{"deploy.*", "finance.*", "customer.message"}

// seedApprovalRules gives a new organization the default approval rules,
// in the transaction that creates it (seams.OrgCreatedHook).
func (m *Module) seedApprovalRules(ctx context.Context, tx bun.IDB, e seams.OrgCreated) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO approval_actions (org_id, action) SELECT ?, unnest(?::text[])`,
		e.OrgID, pgdialect.Array(DefaultApprovalRules))
	return err
}

// ApprovalRules lists org's approval rules: the actions whose tasks wait
// for a person's approval (docs/specs/behavior.md §5.8), sorted.
func (m *Module) ApprovalRules(ctx context.Context, tx bun.IDB, org string) ([]string, error) {
	out := []string{}
	err := tx.NewRaw(`SELECT action FROM approval_actions WHERE org_id = ? ORDER BY action`, org).Scan(ctx, &out)
	return out, err
}

// SetApprovalRules replaces every approval rule of the acting owner's
// organization with actions (empty: nothing needs approval) and returns
// them sorted, without duplicates. Each is an action as a scope names it
// (task.work, deploy.* — a trailing .* covers every sub-action), never
// scoped to a project. Logged as admin.approval_rules.update with the old
// and new lists. Refusals: forbidden, invalid_request.
func (m *Module) SetApprovalRules(ctx context.Context, by string, actions []string) ([]string, error) {
	rules := make([]string, 0, len(actions))
	for _, a := range actions {
		rules = append(rules, strings.TrimSpace(a))
	}
	slices.Sort(rules)
	rules = slices.Compact(rules)
	payload := map[string]any{"actions": rules}
	err := m.ident.Act(ctx, by, identity.Owner, "admin.approval_rules.update", payload,
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := validApprovalRules(rules); err != nil {
				return err
			}
			old, err := m.ApprovalRules(ctx, tx, p.OrgID)
			if err != nil {
				return err
			}
			payload["previous"] = old
			if _, err := tx.ExecContext(ctx, `DELETE FROM approval_actions WHERE org_id = ?`, p.OrgID); err != nil {
				return fmt.Errorf("board.SetApprovalRules: %w", err)
			}
			if len(rules) == 0 {
				return nil
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO approval_actions (org_id, action) SELECT ?, unnest(?::text[])`,
				p.OrgID, pgdialect.Array(rules))
			return db.Refusal(err, "an approval rule")
		})
	if err != nil {
		return nil, err
	}
	return rules, nil
}

func validApprovalRules(rules []string) error {
	if len(rules) > MaxApprovalRules {
		return errs.E(errs.InvalidRequest, "at most %d approval rules", MaxApprovalRules)
	}
	for _, a := range rules {
		if strings.Contains(a, "@") {
			return errs.E(errs.InvalidRequest, "approval rules name actions (e.g. deploy.*), not scopes: %q", a)
		}
		if mandate.ValidScope(a) != nil || len(a) > 200 {
			return errs.E(errs.InvalidRequest, "approval rule %q is not a valid action", a)
		}
	}
	return nil
}
