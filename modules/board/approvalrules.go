package board

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// MaxApprovalRules bounds an organization's approval rules.
const MaxApprovalRules = 100

// DefaultApprovalRules are the approval rules an organization made by
// sign-up starts with (docs/specs/behavior.md §5.8).
var DefaultApprovalRules = []string{"deploy.*", "finance.*", "customer.message"}

// seedApprovalRules gives a new organization the default approval rules,
// in the transaction that creates it (kernel.OrgCreatedHooks).
func (s *Service) seedApprovalRules(ctx context.Context, tx bun.Tx, org string) error {
	return s.st.addApprovalRules(ctx, tx, org, DefaultApprovalRules)
}

// ApprovalRules lists org's approval rules: the actions whose tasks wait
// for a person's approval (docs/specs/behavior.md §5.8), sorted.
func (s *Service) ApprovalRules(ctx context.Context, tx bun.IDB, org string) ([]string, error) {
	return s.st.approvalRules(ctx, tx, org)
}

// SetApprovalRules replaces every approval rule of the acting owner's
// organization with actions (empty: nothing needs approval) and returns
// them sorted, without duplicates. Each is an action as a scope names it
// (task.work, deploy.* — a trailing .* covers every sub-action), never
// scoped to a project. Logged as admin.approval_rules.update with the old
// and new lists. Refusals: forbidden, invalid_request.
func (s *Service) SetApprovalRules(ctx context.Context, by string, actions []string) ([]string, error) {
	rules := make([]string, 0, len(actions))
	for _, a := range actions {
		rules = append(rules, strings.TrimSpace(a))
	}
	slices.Sort(rules)
	rules = slices.Compact(rules)
	payload := map[string]any{"actions": rules}
	err := s.ident.Act(ctx, by, identity.Owner, "admin.approval_rules.update", payload,
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := validApprovalRules(rules); err != nil {
				return err
			}
			old, err := s.ApprovalRules(ctx, tx, p.OrgID)
			if err != nil {
				return err
			}
			payload["previous"] = old
			if err := s.st.clearApprovalRules(ctx, tx, p.OrgID); err != nil {
				return fmt.Errorf("board.SetApprovalRules: %w", err)
			}
			if len(rules) == 0 {
				return nil
			}
			return db.Refusal(s.st.addApprovalRules(ctx, tx, p.OrgID, rules), "an approval rule")
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
