package people

import (
	"context"
	"regexp"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// slackWebhook is the only kind of URL the board posts notifications to.
var slackWebhook = regexp.MustCompile(`^https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{1,200}$`)

// OrgSettings returns the settings of organization org, its Slack webhook
// shown only as the hint the notify module gives (kernel.SlackWebhooks).
// Refusal: not_found.
func (m *Module) OrgSettings(ctx context.Context, tx bun.IDB, org string) (*OrgSettings, error) {
	o, err := m.identity.GetOrg(ctx, tx, org)
	if err != nil {
		return nil, err
	}
	hint, err := m.slack.SlackHint(ctx, tx, org)
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
func (m *Module) UpdateOrg(ctx context.Context, by string, upd OrgUpdate) (*OrgSettings, error) {
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
	err := m.identity.Act(ctx, by, identity.Owner, "admin.org.update", payload,
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
				if err := m.identity.SetOrgName(ctx, tx, p.OrgID, *upd.Name); err != nil {
					return err
				}
			}
			if upd.Language != nil {
				if err := m.identity.SetOrgLanguage(ctx, tx, p.OrgID, *upd.Language); err != nil {
					return err
				}
			}
			if upd.SlackWebhookURL != nil {
				if err := m.slack.SetSlackWebhook(ctx, tx, p.OrgID, *upd.SlackWebhookURL); err != nil {
					return err
				}
			}
			var err error
			out, err = m.OrgSettings(ctx, tx, p.OrgID)
			return err
		})
	return out, err
}
