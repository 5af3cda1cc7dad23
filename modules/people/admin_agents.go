package people

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

type agentsOut struct {
	Body struct {
		Agents []Agent `json:"agents" nullable:"false"`
	}
}

type agentOut struct{ Body Agent }

type agentPath struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
}

type registerIn struct {
	Body struct {
		ID          string             `json:"id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$" example:"code-web"`
		Client      string             `json:"client,omitempty" enum:"chat,cowork,design,code,gemini,runner,a2a,a2a-remote" default:"code"`
		Projects    []string           `json:"projects" doc:"At least one; code and runner agents exactly one"`
		Scope       []string           `json:"scope,omitempty" doc:"Default: task.read, task.post, task.work, pact.read and pact.write on each project"`
		Limits      map[string]float64 `json:"limits,omitempty"`
		Delegations *int               `json:"delegations,omitempty" minimum:"0" maximum:"5" doc:"Default 2"`
		Days        float64            `json:"days,omitempty" doc:"Term of the mandate and the token, in days; default 30"`
	}
}

type registeredOut struct{ Body Registered }

type hireIn struct {
	Body struct {
		Role        string             `json:"role" example:"code"`
		Project     string             `json:"project" example:"web"`
		ID          string             `json:"id,omitempty" pattern:"^[a-z0-9][a-z0-9-]{0,62}$" doc:"Default <role>-<project>"`
		Limits      map[string]float64 `json:"limits,omitempty" doc:"Default: the role's"`
		Delegations *int               `json:"delegations,omitempty" minimum:"0" maximum:"5" doc:"Default: the role's"`
		Days        float64            `json:"days,omitempty" doc:"Mandate term; default: the role's"`
		Owner       string             `json:"owner,omitempty" doc:"Hire it for another person of the organization"`
		Replaces    string             `json:"replaces,omitempty" doc:"An agent to ban and point at the new one"`
	}
}

type hiredOut struct{ Body Hired }

type connectOut struct{ Body Connect }

type connectionOut struct{ Body Connection }

type renewedOut struct{ Body Renewed }

type changeRoleIn struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Body    struct {
		RoleID string `json:"role_id" pattern:"^[a-z0-9][a-z0-9-]{0,30}$" example:"code"`
	}
}

type updateAgentIn struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Body    struct {
		RoleID   *string  `json:"role_id,omitempty" pattern:"^[a-z0-9][a-z0-9-]{0,30}$"`
		Owner    *string  `json:"owner,omitempty"`
		Projects []string `json:"projects,omitempty" doc:"The full new set; reissues the root mandate"`
	}
}

// AgentUpdated is an agent after an update, with what a reissue did.
type AgentUpdated struct {
	Agent           Agent      `json:"agent"`
	MandateID       *uuid.UUID `json:"mandate_id" doc:"The new root mandate, when the role or projects changed"`
	ExpiresAt       *time.Time `json:"expires_at"`
	RevokedMandates []string   `json:"revoked_mandates" nullable:"false"`
}

type agentUpdatedOut struct{ Body AgentUpdated }

type statusIn struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Body    struct {
		Status string `json:"status" enum:"active,paused,banned" doc:"Banning, and undoing a ban, need an owner; a ban revokes every mandate the agent holds"`
	}
}

type preferencesIn struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Body    struct {
		Preferences map[string]any `json:"preferences" doc:"A JSON object of at most 4000 characters"`
	}
}

type preferencesOut struct {
	Body struct {
		OK          bool           `json:"ok"`
		Preferences map[string]any `json:"preferences"`
	}
}

type tokenIn struct {
	AgentID string `path:"agent_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Body    struct {
		Days float64 `json:"days,omitempty" doc:"Default 30"`
	}
}

type tokenOut struct{ Body IssuedToken }

type revokedTokensOut struct {
	Body struct {
		Revoked int64 `json:"revoked"`
	}
}

func (m *Module) registerAgents(api huma.API) {
	huma.Register(api, op(http.MethodGet, "/agents", "list-agents", "List the organization's agents", identity.Viewer), m.listAgents)
	huma.Register(api, op(http.MethodPost, "/agents", "create-agent", "Register an agent with a root mandate and a first token",
		identity.Approver, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict), m.registerAgent)
	huma.Register(api, op(http.MethodPost, "/agents/hire", "hire-agent", "Hire an agent from a role",
		identity.Approver, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict), m.hire)
	huma.Register(api, op(http.MethodGet, "/agents/{agent_id}/connection", "get-agent-connection",
		"Whether a hired agent has connected", identity.Viewer, http.StatusNotFound), m.connection)
	huma.Register(api, op(http.MethodPost, "/agents/{agent_id}/renew", "renew-agent",
		"Issue a hired agent a fresh root mandate from its role", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound), m.renew)
	huma.Register(api, op(http.MethodPost, "/agents/{agent_id}/role", "change-agent-role",
		"Move an agent to another role of its client", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound), m.changeRole)
	huma.Register(api, op(http.MethodPatch, "/agents/{agent_id}", "update-agent",
		"Change an agent's role, owner or projects", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound), m.updateAgent)
	huma.Register(api, op(http.MethodPost, "/agents/{agent_id}/setup-code", "create-setup-code",
		"Give an agent a new setup code (or its connector)", identity.Approver, http.StatusNotFound), m.setupCode)
	huma.Register(api, op(http.MethodPost, "/agents/{agent_id}/status", "set-agent-status",
		"Pause, ban or reactivate an agent (banning and undoing a ban need an owner; a ban revokes the agent's mandates)", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound), m.setStatus)
	huma.Register(api, op(http.MethodPut, "/agents/{agent_id}/preferences", "set-agent-preferences",
		"Replace an agent's preferences", identity.Approver, http.StatusBadRequest, http.StatusNotFound), m.setPreferences)
	huma.Register(api, op(http.MethodPost, "/agents/{agent_id}/tokens", "issue-agent-token",
		"Give an agent a further token, shown once", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict), m.issueToken)
	huma.Register(api, op(http.MethodDelete, "/agents/{agent_id}/tokens", "revoke-agent-tokens",
		"Revoke every live token of an agent", identity.Approver, http.StatusNotFound), m.revokeTokens)
}

func (m *Module) listAgents(ctx context.Context, _ *struct{}) (*agentsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &agentsOut{}
	out.Body.Agents, err = m.svc.Agents(ctx, p)
	return out, err
}

func (m *Module) registerAgent(ctx context.Context, in *registerIn) (*registeredOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	client := b.Client
	if client == "" {
		client = "code"
	}
	r, err := m.svc.RegisterAgent(ctx, p.ID, AgentInput{ID: b.ID, Client: client, Projects: b.Projects,
		Scope: b.Scope, Limits: b.Limits, Delegations: b.Delegations, MandateDays: b.Days, TokenDays: b.Days})
	if err != nil {
		return nil, err
	}
	return &registeredOut{Body: *r}, nil
}

func (m *Module) hire(ctx context.Context, in *hireIn) (*hiredOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	h, err := m.svc.Hire(ctx, p.ID, HireInput{Role: b.Role, Project: b.Project, ID: b.ID, Limits: b.Limits,
		Delegations: b.Delegations, Days: b.Days, Owner: b.Owner, Replaces: b.Replaces})
	if err != nil {
		return nil, err
	}
	return &hiredOut{Body: *h}, nil
}

func (m *Module) connection(ctx context.Context, in *agentPath) (*connectionOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	c, err := m.svc.GetConnection(ctx, p, in.AgentID)
	if err != nil {
		return nil, err
	}
	return &connectionOut{Body: *c}, nil
}

func (m *Module) renew(ctx context.Context, in *agentPath) (*renewedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	r, err := m.svc.Renew(ctx, p.ID, in.AgentID)
	if err != nil {
		return nil, err
	}
	return &renewedOut{Body: *r}, nil
}

// updated answers a change with the agent as the list shows it.
func (m *Module) updated(ctx context.Context, p *identity.Person, u *AgentChange) (*agentUpdatedOut, error) {
	a, err := m.svc.Agent(ctx, p, u.Agent.ID)
	if err != nil {
		return nil, err
	}
	return &agentUpdatedOut{Body: AgentUpdated{Agent: *a, MandateID: u.MandateID, ExpiresAt: u.ExpiresAt,
		RevokedMandates: u.RevokedMandates}}, nil
}

func (m *Module) changeRole(ctx context.Context, in *changeRoleIn) (*agentUpdatedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	u, err := m.svc.ChangeRole(ctx, p.ID, in.AgentID, in.Body.RoleID)
	if err != nil {
		return nil, err
	}
	return m.updated(ctx, p, u)
}

func (m *Module) updateAgent(ctx context.Context, in *updateAgentIn) (*agentUpdatedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	u, err := m.svc.UpdateAgent(ctx, p.ID, in.AgentID, AgentUpdate{RoleID: b.RoleID, Owner: b.Owner, Projects: b.Projects})
	if err != nil {
		return nil, err
	}
	return m.updated(ctx, p, u)
}

func (m *Module) setupCode(ctx context.Context, in *agentPath) (*connectOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	c, err := m.svc.NewSetupCode(ctx, p.ID, in.AgentID)
	if err != nil {
		return nil, err
	}
	return &connectOut{Body: *c}, nil
}

func (m *Module) setStatus(ctx context.Context, in *statusIn) (*agentOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := m.svc.SetAgentStatus(ctx, p.ID, in.AgentID, in.Body.Status); err != nil {
		return nil, err
	}
	a, err := m.svc.Agent(ctx, p, in.AgentID)
	if err != nil {
		return nil, err
	}
	return &agentOut{Body: *a}, nil
}

func (m *Module) setPreferences(ctx context.Context, in *preferencesIn) (*preferencesOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(in.Body.Preferences)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "preferences must be a JSON object")
	}
	prefs, err := m.svc.SetPreferences(ctx, p.ID, in.AgentID, raw)
	if err != nil {
		return nil, err
	}
	out := &preferencesOut{}
	out.Body.OK = true
	err = json.Unmarshal(prefs, &out.Body.Preferences)
	return out, err
}

func (m *Module) issueToken(ctx context.Context, in *tokenIn) (*tokenOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	t, err := m.svc.IssueToken(ctx, p.ID, in.AgentID, in.Body.Days)
	if err != nil {
		return nil, err
	}
	return &tokenOut{Body: *t}, nil
}

func (m *Module) revokeTokens(ctx context.Context, in *agentPath) (*revokedTokensOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	n, err := m.svc.RevokeTokens(ctx, p.ID, in.AgentID)
	if err != nil {
		return nil, err
	}
	out := &revokedTokensOut{}
	out.Body.Revoked = n
	return out, nil
}
