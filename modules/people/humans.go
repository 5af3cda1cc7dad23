package people

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// Human is a person of the caller's organization.
type Human struct {
	ID         string        `json:"id" example:"ana"`
	Name       string        `json:"name" example:"Ana"`
	Role       identity.Role `json:"role" enum:"owner,approver,viewer"`
	Email      *string       `json:"email" format:"email"`
	CreatedAt  time.Time     `json:"created_at"`
	DisabledAt *time.Time    `json:"disabled_at" doc:"Set while the person is disabled; people are never deleted"`
	Language   *string       `json:"language" doc:"en or th: the language of texts addressed to this person alone; null follows the organization's"`
}

func human(p *identity.Person) Human {
	return Human{ID: p.ID, Name: p.Name, Role: p.Role, Email: p.Email, CreatedAt: p.CreatedAt, DisabledAt: p.DisabledAt,
		Language: p.Language}
}

// OrgBrief names an organization.
type OrgBrief struct {
	ID     string `json:"id" example:"default"`
	Name   string `json:"name"`
	Halted bool   `json:"halted" doc:"The organization's kill switch is on: its agents' calls are refused"`
}

// Me is the signed-in person.
type Me struct {
	ID    string        `json:"id"`
	Name  string        `json:"name"`
	Role  identity.Role `json:"role" enum:"owner,approver,viewer"`
	Email *string       `json:"email"`
	Org   OrgBrief      `json:"org"`
	// Language is the person's own choice, nil when they follow the
	// organization; ReadsIn is what texts addressed to them are written in.
	Language *string `json:"language" doc:"en or th: their own language; null follows the organization's"`
	ReadsIn  string  `json:"reads_in" enum:"en,th" doc:"The language texts addressed to them are written in: their own, else the organization's"`
}

type meOut struct{ Body Me }

type humansOut struct {
	Body struct {
		Humans []Human `json:"humans" nullable:"false"`
	}
}

type humanOut struct{ Body Human }

type inviteIn struct {
	Body struct {
		ID    string        `json:"id" pattern:"^[a-z0-9][a-z0-9._-]{0,62}$" doc:"Global id: 1-63 of a-z, 0-9, '.', '_', '-'"`
		Name  string        `json:"name" minLength:"1" maxLength:"200"`
		Role  identity.Role `json:"role,omitempty" enum:"owner,approver,viewer" default:"viewer"`
		Email string        `json:"email" format:"email" doc:"They sign in with an account whose verified email this is"`
	}
}

type updateHumanIn struct {
	HumanID string `path:"human_id" pattern:"^[a-z0-9][a-z0-9._-]{0,62}$"`
	Body    struct {
		Name     *string        `json:"name,omitempty" maxLength:"200"`
		Email    *string        `json:"email,omitempty" doc:"A new address unbinds their sign-in account; empty removes it"`
		Role     *identity.Role `json:"role,omitempty" enum:"owner,approver,viewer"`
		Disabled *bool          `json:"disabled,omitempty"`
	}
}

func (m *Module) registerHumans(api huma.API) {
	huma.Register(api, op(http.MethodGet, "/me", "get-me", "Who is signed in", identity.Viewer), m.me)
	huma.Register(api, op(http.MethodPatch, "/me", "update-me", "Choose the language of texts addressed to you",
		identity.Viewer, http.StatusBadRequest), m.updateMe)
	huma.Register(api, op(http.MethodGet, "/humans", "list-humans", "List the organization's people", identity.Viewer), m.listHumans)
	huma.Register(api, op(http.MethodPost, "/humans", "create-human", "Invite a person", identity.Owner,
		http.StatusBadRequest, http.StatusConflict), m.invite)
	huma.Register(api, op(http.MethodPatch, "/humans/{human_id}", "update-human",
		"Rename, re-address, change the role of, disable or re-enable a person", identity.Owner,
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict), m.updateHuman)
}

func (m *Module) me(ctx context.Context, _ *struct{}) (*meOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	o, err := m.identity.GetOrg(ctx, m.db, p.OrgID)
	if err != nil {
		return nil, err
	}
	return &meOut{Body: meOf(p, o)}, nil
}

// meOf is what /me answers for p of organization o.
func meOf(p *identity.Person, o *identity.Org) Me {
	reads := o.Language
	if p.Language != nil {
		reads = *p.Language
	}
	return Me{ID: p.ID, Name: p.Name, Role: p.Role, Email: p.Email,
		Org: OrgBrief{ID: o.ID, Name: o.Name, Halted: o.Halted}, Language: p.Language, ReadsIn: reads}
}

func (m *Module) listHumans(ctx context.Context, _ *struct{}) (*humansOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &humansOut{}
	out.Body.Humans, err = m.humanRows(ctx, m.db, p.OrgID)
	return out, err
}

func (m *Module) invite(ctx context.Context, in *inviteIn) (*humanOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	role := in.Body.Role
	if role == "" {
		role = identity.Viewer
	}
	h, err := m.identity.AddHuman(ctx, p.ID, identity.HumanInput{ID: in.Body.ID, Name: in.Body.Name, Role: role, Email: in.Body.Email})
	if err != nil {
		return nil, err
	}
	return &humanOut{Body: human(h)}, nil
}

func (m *Module) updateHuman(ctx context.Context, in *updateHumanIn) (*humanOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	b := in.Body
	h, err := m.UpdateHuman(ctx, p.ID, in.HumanID,
		HumanUpdate{Name: b.Name, Email: b.Email, Role: b.Role, Disabled: b.Disabled})
	if err != nil {
		return nil, err
	}
	return &humanOut{Body: human(h)}, nil
}
