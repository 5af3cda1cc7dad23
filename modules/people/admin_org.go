package people

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

type orgOut struct{ Body OrgSettings }

type updateOrgIn struct {
	Body struct {
		Name            *string   `json:"name,omitempty" maxLength:"80"`
		SlackWebhookURL clearable `json:"slack_webhook_url,omitempty" doc:"https://hooks.slack.com/services/…; null or blank removes it"`
		Language        *string   `json:"language,omitempty" maxLength:"35" doc:"The language of the organization's notifications: en (the default) or th"`
	}
}

type killSwitch struct {
	Halted bool `json:"halted" doc:"true stops every call of the organization's agents; false lets them work again"`
}

type killSwitchIn struct{ Body killSwitch }

type killSwitchOut struct{ Body killSwitch }

func (m *Module) registerOrg(api huma.API) {
	huma.Register(api, op(http.MethodGet, "/org", "get-org", "The organization's settings", identity.Viewer), m.getOrg)
	huma.Register(api, op(http.MethodPut, "/org", "update-org", "Rename the organization, set its Slack webhook or its language",
		identity.Owner, http.StatusBadRequest), m.updateOrg)
	huma.Register(api, op(http.MethodPost, "/kill-switch", "set-kill-switch", "Halt or resume every agent of the organization",
		identity.Owner), m.setKillSwitch)
}

func (m *Module) getOrg(ctx context.Context, _ *struct{}) (*orgOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	o, err := m.svc.OrgSettings(ctx, p)
	if err != nil {
		return nil, err
	}
	return &orgOut{Body: *o}, nil
}

func (m *Module) updateOrg(ctx context.Context, in *updateOrgIn) (*orgOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	o, err := m.svc.UpdateOrg(ctx, p.ID, OrgUpdate{Name: in.Body.Name, SlackWebhookURL: in.Body.SlackWebhookURL.update(),
		Language: in.Body.Language})
	if err != nil {
		return nil, err
	}
	return &orgOut{Body: *o}, nil
}

func (m *Module) setKillSwitch(ctx context.Context, in *killSwitchIn) (*killSwitchOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.svc.SetOrgHalted(ctx, p.ID, in.Body.Halted); err != nil {
		return nil, err
	}
	return &killSwitchOut{Body: in.Body}, nil
}
