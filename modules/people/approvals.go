package people

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
)

// ApprovalRules are the actions whose tasks wait for a person's approval.
type ApprovalRules struct {
	Actions []string `json:"actions" nullable:"false" maxItems:"100" example:"[\"deploy.*\",\"finance.*\",\"customer.message\"]" doc:"Actions (a trailing .* covers every sub-action), never project-scoped; empty: nothing needs approval"`
}

type approvalRulesIn struct{ Body ApprovalRules }

type approvalRulesOut struct{ Body ApprovalRules }

func (m *Module) registerApprovalRules(api huma.API) {
	huma.Register(api, op(http.MethodGet, "/approval-rules", "get-approval-rules",
		"The actions whose tasks need a person's approval", identity.Viewer), m.getApprovalRules)
	huma.Register(api, op(http.MethodPut, "/approval-rules", "set-approval-rules",
		"Replace every approval rule of the organization", identity.Owner, http.StatusBadRequest), m.setApprovalRules)
}

func (m *Module) getApprovalRules(ctx context.Context, _ *struct{}) (*approvalRulesOut, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	out := &approvalRulesOut{}
	out.Body.Actions, err = m.identity.ApprovalRules(ctx, m.db, p.OrgID)
	return out, err
}

func (m *Module) setApprovalRules(ctx context.Context, in *approvalRulesIn) (*approvalRulesOut, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := m.identity.SetApprovalRules(ctx, p.ID, in.Body.Actions)
	if err != nil {
		return nil, err
	}
	return &approvalRulesOut{Body: ApprovalRules{Actions: rules}}, nil
}
