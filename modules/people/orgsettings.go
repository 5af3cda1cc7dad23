package people

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// slackWebhook is the only kind of URL the board posts notifications to.
var slackWebhook = regexp.MustCompile(`^https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{1,200}$`)

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

// OrgSettings are the settings of person p's organization.
func (s *Service) OrgSettings(ctx context.Context, p *identity.Person) (*OrgSettings, error) {
	return s.orgSettings(ctx, s.db, p.OrgID)
}

// orgSettings returns the settings of organization org, its Slack webhook
// shown only as the hint the notify module gives (seams.SlackWebhooksSeam).
// Refusal: not_found.
func (s *Service) orgSettings(ctx context.Context, tx bun.IDB, org string) (*OrgSettings, error) {
	o, err := s.ident.GetOrg(ctx, tx, org)
	if err != nil {
		return nil, err
	}
	slack, err := s.slack()
	if err != nil {
		return nil, err
	}
	hint, err := slack.SlackHint(ctx, tx, org)
	if err != nil {
		return nil, err
	}
	return &OrgSettings{ID: o.ID, Name: o.Name, Halted: o.Halted, TermsVersion: o.TermsVersion, CreatedAt: o.CreatedAt,
		Language: o.Language, Slack: Slack{Configured: hint != nil, Hint: hint}}, nil
}

// OrgUpdate is what UpdateOrg changes; nil leaves a field as it is. A blank
// SlackWebhookURL removes the webhook. Language is a tag of
// i18n.Languages: the language the organization's notifications are
// written in.
type OrgUpdate struct {
	Name            *string
	SlackWebhookURL *string
	Language        *string
}

// UpdateOrg renames the acting owner's organization, sets or clears its
// Slack webhook (sealed by the notify module) or sets its language. The log
// says whether the webhook was set or cleared, never the URL. Refusals:
// forbidden; invalid_request (nothing to change, a name outside 1-80
// characters, a webhook that is not https://hooks.slack.com/services/…, a
// language the board does not speak).
func (s *Service) UpdateOrg(ctx context.Context, by string, upd OrgUpdate) (*OrgSettings, error) {
	payload := map[string]any{}
	if upd.Name != nil {
		upd.Name = ptr(strings.TrimSpace(*upd.Name))
		payload["name"] = *upd.Name
	}
	if upd.SlackWebhookURL != nil {
		upd.SlackWebhookURL = ptr(strings.TrimSpace(*upd.SlackWebhookURL))
		payload["slack_webhook"] = "set"
		if *upd.SlackWebhookURL == "" {
			payload["slack_webhook"] = "cleared"
		}
	}
	if upd.Language != nil {
		payload["language"] = *upd.Language
	}
	var out *OrgSettings
	err := s.ident.Act(ctx, by, identity.Owner, "admin.org.update", payload,
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			switch {
			case upd.Name == nil && upd.SlackWebhookURL == nil && upd.Language == nil:
				return errs.E(errs.InvalidRequest, "name something to change: name, slack_webhook_url or language")
			case upd.Name != nil && (*upd.Name == "" || len([]rune(*upd.Name)) > 80):
				return errs.E(errs.InvalidRequest, "an organization's name is 1-80 characters")
			case upd.SlackWebhookURL != nil && *upd.SlackWebhookURL != "" && !slackWebhook.MatchString(*upd.SlackWebhookURL):
				return errs.E(errs.InvalidRequest, "a Slack webhook is https://hooks.slack.com/services/… with no query; null or blank removes it")
			}
			if upd.Name != nil {
				if err := s.ident.SetOrgName(ctx, tx, p.OrgID, *upd.Name); err != nil {
					return err
				}
			}
			if upd.Language != nil {
				if err := s.ident.SetOrgLanguage(ctx, tx, p.OrgID, *upd.Language); err != nil {
					return err
				}
			}
			if upd.SlackWebhookURL != nil {
				slack, err := s.slack()
				if err != nil {
					return err
				}
				if err := slack.SetSlackWebhook(ctx, tx, p.OrgID, *upd.SlackWebhookURL); err != nil {
					return err
				}
			}
			var err error
			out, err = s.orgSettings(ctx, tx, p.OrgID)
			return err
		})
	return out, err
}

// SetOrgHalted is a person's kill switch for their own organization (owners
// only). Refusal: forbidden.
func (s *Service) SetOrgHalted(ctx context.Context, by string, halted bool) error {
	return s.ident.Act(ctx, by, identity.Owner, "admin.kill_switch", map[string]any{"halted": halted},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			return s.ident.SetOrgHalted(ctx, tx, p.OrgID, halted)
		})
}
