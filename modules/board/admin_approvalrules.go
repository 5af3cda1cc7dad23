package board

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// ApprovalRules are the actions whose tasks wait for a person's approval.
type ApprovalRules struct {
	Actions []string `json:"actions" nullable:"false" maxItems:"100" example:"[\"deploy.*\",\"finance.*\",\"customer.message\"]" doc:"Actions (a trailing .* covers every sub-action), never project-scoped; empty: nothing needs approval"`
}

type approvalRulesIn struct{ Body ApprovalRules }

type approvalRulesOut struct{ Body ApprovalRules }

// registerApprovalRules adds the approval rules' Admin API operations,
// under the ids and tag they had in the people module, and seeds every new
// organization with the default rules.
func (m *Module) registerApprovalRules(h *kernel.Host) {
	api := h.Admin()
	huma.Register(api, approvalOp(http.MethodGet, "get-approval-rules",
		"The actions whose tasks need a person's approval", identity.Viewer), m.getApprovalRules)
	huma.Register(api, approvalOp(http.MethodPut, "set-approval-rules",
		"Replace every approval rule of the organization", identity.Owner, http.StatusBadRequest), m.setApprovalRules)
}

// approvalOp is an operation on /approval-rules: role-gated by AdminOp, a
// small body.
func approvalOp(method, id, summary string, min identity.Role, errors ...int) huma.Operation {
	return kernel.AdminOp(huma.Operation{OperationID: "people-" + id, Method: method, Path: "/approval-rules",
		Summary: summary, Tags: []string{"people"}, Errors: errors, MaxBodyBytes: 16 << 10}, min)
}

func (m *Module) getApprovalRules(ctx context.Context, _ *struct{}) (*approvalRulesOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &approvalRulesOut{}
	out.Body.Actions, err = m.svc.ApprovalRules(ctx, nil, p.OrgID)
	return out, err
}

func (m *Module) setApprovalRules(ctx context.Context, in *approvalRulesIn) (*approvalRulesOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := m.SetApprovalRules(ctx, p.ID, in.Body.Actions)
	if err != nil {
		return nil, err
	}
	return &approvalRulesOut{Body: ApprovalRules{Actions: rules}}, nil
}

// ApprovalRules lists org's approval rules, sorted (Service.ApprovalRules).
func (m *Module) ApprovalRules(ctx context.Context, tx bun.IDB, org string) ([]string, error) {
	return m.svc.ApprovalRules(ctx, tx, org)
}

// SetApprovalRules replaces every approval rule of the acting owner's
// organization with actions (Service.SetApprovalRules) and returns them
// sorted, without duplicates; logged as admin.approval_rules.update with
// the old and new lists. Refusals: forbidden, invalid_request.
func (m *Module) SetApprovalRules(ctx context.Context, by string, actions []string) ([]string, error) {
	rules := approvalRulesFrom(actions)
	payload := map[string]any{"actions": rules}
	err := m.ident.Act(ctx, by, identity.Owner, "admin.approval_rules.update", payload,
		func(ctx context.Context, tx bun.Tx, p *identity.Person, _ *ledger.Entry) error {
			old, err := m.svc.SetApprovalRules(ctx, tx, personActor(p), rules)
			if old != nil {
				payload["previous"] = old
			}
			return err
		})
	if err != nil {
		return nil, err
	}
	return rules, nil
}
