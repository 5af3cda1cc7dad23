package people

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

type rolesIn struct {
	Archived bool `query:"archived" doc:"Include archived roles"`
}

type rolesOut struct {
	Body struct {
		Roles []AgentRole `json:"roles" nullable:"false"`
	}
}

type roleOut struct{ Body AgentRole }

type rolePath struct {
	RoleID string `path:"role_id" pattern:"^[a-z0-9][a-z0-9-]{0,30}$"`
}

type saveRoleIn struct {
	RoleID string `path:"role_id" pattern:"^[a-z0-9][a-z0-9-]{0,30}$"`
	Body   struct {
		Name         string             `json:"name" maxLength:"80"`
		Description  string             `json:"description,omitempty" maxLength:"2000"`
		Client       string             `json:"client" enum:"chat,cowork,design,code,gemini,runner,a2a,a2a-remote"`
		Actions      []string           `json:"actions" doc:"Project-relative actions its mandate grants, e.g. task.work; at least one"`
		Limits       map[string]float64 `json:"limits,omitempty"`
		Delegations  *int               `json:"delegations,omitempty" minimum:"0" maximum:"5" doc:"Default 1"`
		MandateDays  float64            `json:"mandate_days,omitempty" doc:"Default 30"`
		TokenDays    float64            `json:"token_days,omitempty" doc:"Default 90"`
		Settings     map[string]string  `json:"settings,omitempty" doc:"PACT_RUNNER_* (or DATABASE_URL) for runners; {project} is filled in. Secret ones (DATABASE_URL, *_TOKEN, *_SECRET, *_PASSWORD, *_KEY) are stored sealed and read back as [REDACTED]; send [REDACTED] to keep the value the role holds"`
		Instructions string             `json:"instructions,omitempty" maxLength:"20000"`
		Position     *int               `json:"position,omitempty" doc:"Order in the list; default 100"`
	}
}

func (m *Module) registerRoles(api huma.API) {
	huma.Register(api, op(http.MethodGet, "/roles", "list-roles", "List the roles agents are hired from", identity.Viewer), m.listRoles)
	huma.Register(api, op(http.MethodPut, "/roles/{role_id}", "save-role", "Create or replace a role (un-archives it)",
		identity.Approver, http.StatusBadRequest), m.saveRole)
	huma.Register(api, op(http.MethodPost, "/roles/{role_id}/archive", "archive-role",
		"Archive a role: it hires no one; its agents keep working", identity.Approver, http.StatusNotFound), m.archiveRole)
}

func (m *Module) listRoles(ctx context.Context, in *rolesIn) (*rolesOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &rolesOut{}
	out.Body.Roles, err = m.svc.Roles(ctx, p, in.Archived)
	return out, err
}

func (m *Module) saveRole(ctx context.Context, in *saveRoleIn) (*roleOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	r, err := m.svc.SaveRole(ctx, p.ID, RoleInput{ID: in.RoleID, Name: b.Name, Description: b.Description,
		Client: b.Client, Actions: b.Actions, Limits: b.Limits, Delegations: b.Delegations, MandateDays: b.MandateDays,
		TokenDays: b.TokenDays, Settings: b.Settings, Instructions: b.Instructions, Position: b.Position})
	if err != nil {
		return nil, err
	}
	return &roleOut{Body: *r}, nil
}

func (m *Module) archiveRole(ctx context.Context, in *rolePath) (*roleOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	r, err := m.svc.ArchiveRole(ctx, p.ID, in.RoleID)
	if err != nil {
		return nil, err
	}
	return &roleOut{Body: *r}, nil
}
