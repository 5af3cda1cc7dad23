package pacts

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// The pact settings: the organization's open-pact limit per project
// (owners change it) and each person's unread-nudge threshold.

type pactOrgSettings struct {
	OpenLimit int `json:"open_limit" minimum:"1" maximum:"1000" doc:"Open pacts a project may have; closed ones do not count (default 10)"`
}

type pactOrgSettingsIn struct{ Body pactOrgSettings }

type pactOrgSettingsOut struct{ Body pactOrgSettings }

type pactMySettings struct {
	NudgeAfter string `json:"nudge_after" enum:"30m,1h,3h,12h,24h" doc:"How long a message in a pact you own waits unread by the others before you hear of it (default 30m)"`
}

type pactMySettingsIn struct{ Body pactMySettings }

type pactMySettingsOut struct{ Body pactMySettings }

func (m *Module) registerSettings(api huma.API) {
	huma.Register(api, m.adminOp(http.MethodGet, "/pact-settings", "get-settings", "The organization's pact settings", identity.Viewer),
		func(ctx context.Context, _ *struct{}) (*pactOrgSettingsOut, error) {
			out := &pactOrgSettingsOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, _ Access) (err error) {
				out.Body.OpenLimit, err = m.svc.OpenLimit(ctx, tx, a.Org)
				return err
			})
		})
	huma.Register(api, m.adminOp(http.MethodPut, "/pact-settings", "set-settings",
		"Change the organization's pact settings", identity.Owner, http.StatusBadRequest),
		func(ctx context.Context, in *pactOrgSettingsIn) (*pactOrgSettingsOut, error) {
			p, err := kernel.SignedIn(ctx)
			if err != nil {
				return nil, err
			}
			err = m.ident.Act(ctx, p.ID, identity.Owner, "admin.pact.settings", map[string]any{"open_limit": in.Body.OpenLimit},
				func(ctx context.Context, tx bun.Tx, p *identity.Person, _ *ledger.Entry) error {
					return m.svc.SetOpenLimit(ctx, tx, p.OrgID, "human:"+p.ID, in.Body.OpenLimit)
				})
			return &pactOrgSettingsOut{Body: in.Body}, err
		})
	huma.Register(api, m.adminOp(http.MethodGet, "/me/pact-settings", "get-my-settings", "Your pact settings", identity.Viewer),
		func(ctx context.Context, _ *struct{}) (*pactMySettingsOut, error) {
			out := &pactMySettingsOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, _ Access) (err error) {
				out.Body.NudgeAfter, err = m.svc.NudgeAfter(ctx, tx, a.Human)
				return err
			})
		})
	huma.Register(api, m.adminOp(http.MethodPut, "/me/pact-settings", "set-my-settings", "Change your pact settings",
		identity.Viewer, http.StatusBadRequest),
		func(ctx context.Context, in *pactMySettingsIn) (*pactMySettingsOut, error) {
			p, err := kernel.SignedIn(ctx)
			if err != nil {
				return nil, err
			}
			err = m.ident.Act(ctx, p.ID, identity.Viewer, "admin.pact.my_settings", map[string]any{"nudge_after": in.Body.NudgeAfter},
				func(ctx context.Context, tx bun.Tx, p *identity.Person, _ *ledger.Entry) error {
					return m.svc.SetNudgeAfter(ctx, tx, p.ID, in.Body.NudgeAfter)
				})
			return &pactMySettingsOut{Body: in.Body}, err
		})
}
