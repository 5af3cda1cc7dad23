package board

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
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
func (s *Service) seedApprovalRules(ctx context.Context, tx bun.IDB, e seams.OrgCreated) error {
	return s.st.addApprovalRules(ctx, tx, e.OrgID, DefaultApprovalRules)
}

// ApprovalRules lists org's approval rules: the actions whose tasks wait
// for a person's approval (docs/specs/behavior.md §5.8), sorted (tx nil:
// the pool).
func (s *Service) ApprovalRules(ctx context.Context, tx bun.IDB, org string) ([]string, error) {
	if tx == nil {
		tx = s.db
	}
	return s.st.approvalRules(ctx, tx, org)
}

// approvalRulesFrom is actions as approval rules: trimmed, sorted, once
// each.
func approvalRulesFrom(actions []string) []string {
	rules := make([]string, 0, len(actions))
	for _, a := range actions {
		rules = append(rules, strings.TrimSpace(a))
	}
	slices.Sort(rules)
	return slices.Compact(rules)
}

// SetApprovalRules replaces every approval rule of by's organization with
// rules (as approvalRulesFrom makes them; empty: nothing needs approval)
// and returns the rules it replaced, once read, even when it then fails.
// Each is an action as a scope names it (task.work, deploy.* — a trailing
// .* covers every sub-action), never scoped to a project. Refusal:
// invalid_request.
func (s *Service) SetApprovalRules(ctx context.Context, tx bun.IDB, by Actor, rules []string) ([]string, error) {
	if err := validApprovalRules(rules); err != nil {
		return nil, err
	}
	old, err := s.ApprovalRules(ctx, tx, by.OrgID)
	if err != nil {
		return nil, err
	}
	if err := s.st.clearApprovalRules(ctx, tx, by.OrgID); err != nil {
		return old, fmt.Errorf("board.SetApprovalRules: %w", err)
	}
	if len(rules) == 0 {
		return old, nil
	}
	return old, db.Refusal(s.st.addApprovalRules(ctx, tx, by.OrgID, rules), "an approval rule")
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
