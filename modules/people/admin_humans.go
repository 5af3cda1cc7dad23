package people

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

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
	me, err := m.svc.Me(ctx, p)
	if err != nil {
		return nil, err
	}
	return &meOut{Body: *me}, nil
}

type updateMeIn struct {
	Body struct {
		Language clearable `json:"language,omitempty" doc:"en or th; null follows the organization's language"`
	}
}

func (m *Module) updateMe(ctx context.Context, in *updateMeIn) (*meOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	if !in.Body.Language.set {
		return nil, errs.E(errs.InvalidRequest, "name something to change: language")
	}
	var lang *string
	if in.Body.Language.value != "" {
		lang = &in.Body.Language.value
	}
	me, err := m.svc.SetMyLanguage(ctx, p.ID, lang)
	if err != nil {
		return nil, err
	}
	return &meOut{Body: *me}, nil
}

func (m *Module) listHumans(ctx context.Context, _ *struct{}) (*humansOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &humansOut{}
	out.Body.Humans, err = m.svc.Humans(ctx, p)
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
	h, err := m.svc.AddHuman(ctx, p.ID, identity.HumanInput{ID: in.Body.ID, Name: in.Body.Name, Role: role, Email: in.Body.Email})
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
	h, err := m.svc.UpdateHuman(ctx, p.ID, in.HumanID,
		HumanUpdate{Name: b.Name, Email: b.Email, Role: b.Role, Disabled: b.Disabled})
	if err != nil {
		return nil, err
	}
	return &humanOut{Body: human(h)}, nil
}
