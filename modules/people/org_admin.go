package people

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// OrgSettings are the organization's settings. The Slack webhook URL is a
// secret and never leaves the board: only whether one is set and its last
// four characters.
type OrgSettings struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Halted       bool      `json:"halted"`
	TermsVersion *string   `json:"terms_version"`
	CreatedAt    time.Time `json:"created_at"`
	Language     string    `json:"language" enum:"en,th" doc:"The language the organization's notifications are written in"`
	Slack        Slack     `json:"slack"`
}

// Slack says whether notifications go to a Slack webhook.
type Slack struct {
	Configured bool    `json:"configured"`
	Hint       *string `json:"hint" example:"…a1b2" doc:"… and the URL's last 4 characters"`
}

type orgOut struct{ Body OrgSettings }

// clearable is a JSON string that tells apart absent (unchanged) and null
// (remove).
type clearable struct {
	set   bool
	value string
}

func (c *clearable) UnmarshalJSON(b []byte) error {
	c.set = true
	if string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, &c.value)
}

// Schema documents clearable as a nullable string.
func (clearable) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Nullable: true, MaxLength: ptr(300)}
}

func (c clearable) update() *string {
	if !c.set {
		return nil
	}
	return &c.value
}

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
	o, err := m.OrgSettings(ctx, m.db, p.OrgID)
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
	o, err := m.UpdateOrg(ctx, p.ID, OrgUpdate{Name: in.Body.Name, SlackWebhookURL: in.Body.SlackWebhookURL.update(),
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
	if err := m.SetOrgHalted(ctx, p.ID, in.Body.Halted); err != nil {
		return nil, err
	}
	return &killSwitchOut{Body: in.Body}, nil
}

func ptr[T any](v T) *T { return &v }
