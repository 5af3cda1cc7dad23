package people

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
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
		Client       string             `json:"client" enum:"chat,cowork,design,code,gemini,runner"`
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
	// Anyone may list roles: ListRoles shows secret settings as set, never
	// what they are.
	out.Body.Roles, err = m.ListRoles(ctx, m.db, p.OrgID, in.Archived)
	return out, err
}

func (m *Module) saveRole(ctx context.Context, in *saveRoleIn) (*roleOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	r, err := m.SaveRole(ctx, p.ID, RoleInput{ID: in.RoleID, Name: b.Name, Description: b.Description,
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
	r, err := m.ArchiveRole(ctx, p.ID, in.RoleID)
	if err != nil {
		return nil, err
	}
	return &roleOut{Body: *r}, nil
}

// maxConnectBody bounds a POST /connect body.
const maxConnectBody = 4096

// Connected is what POST /connect answers, once per setup code.
type Connected struct {
	AgentID      string            `json:"agent_id"`
	Client       string            `json:"client"`
	Project      string            `json:"project"`
	BoardURL     string            `json:"board_url"`
	MCPURL       string            `json:"mcp_url"`
	Token        string            `json:"token"`
	Role         *string           `json:"role"`
	Settings     map[string]string `json:"settings"`
	Instructions string            `json:"instructions"`
}

// serveConnect redeems a setup code (docs/specs/behavior.md §10.3). It takes no
// authentication: the code is the credential.
func (m *Module) serveConnect(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	raw, err := readAtMost(r, maxConnectBody)
	switch {
	case kernel.IsReadTimeout(err):
		kernel.WriteError(w, http.StatusRequestTimeout, errs.E(errs.InvalidRequest,
			"the body did not arrive within %s; send it whole with the request", kernel.MaxRequestRead))
		return
	case err != nil:
		kernel.WriteError(w, http.StatusRequestEntityTooLarge, errs.E(errs.InvalidRequest,
			"the body is at most %d bytes: send {\"code\": \"pcs_...\"}", maxConnectBody))
		return
	}
	var body struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(raw, &body) != nil || !strings.HasPrefix(body.Code, SetupCodePrefix) {
		kernel.WriteError(w, http.StatusBadRequest, errs.E(errs.InvalidRequest, `send {"code": "pcs_..."}`))
		return
	}
	red, err := m.RedeemSetupCode(r.Context(), body.Code)
	if err != nil {
		if e, ok := errs.As(err); ok && e.Code == errs.Forbidden {
			kernel.WriteError(w, http.StatusForbidden, e)
			return
		}
		p := kernel.Public(err) // the database down is 503 unavailable
		kernel.WriteError(w, kernel.AdminStatus(p.Code), p)
		return
	}
	base := m.cfg.BoardURL
	kernel.WriteJSON(w, http.StatusOK, Connected{AgentID: red.AgentID, Client: red.Client, Project: red.Project,
		BoardURL: base, MCPURL: base + "/mcp/a/" + red.AgentID, Token: red.Token, Role: red.Role,
		Settings: red.Settings, Instructions: red.Instructions})
}

var errTooLarge = errors.New("body too large")

// readAtMost reads r's body, refusing one longer than n bytes; a body that
// failed to arrive returns the read's error.
func readAtMost(r *http.Request, n int64) ([]byte, error) {
	if r.ContentLength > n {
		return nil, errTooLarge
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, n+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > n {
		return nil, errTooLarge
	}
	return raw, nil
}
