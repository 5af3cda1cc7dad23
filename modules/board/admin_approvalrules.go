package board

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
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
	out.Body.Actions, err = m.ApprovalRules(ctx, m.db, p.OrgID)
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
