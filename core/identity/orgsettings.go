package identity

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// slackWebhook is the only kind of URL the board posts notifications to.
var slackWebhook = regexp.MustCompile(`^https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{1,200}$`)

// Org is an organization as its people see it. The Slack webhook URL is a
// secret: only whether it is set and its last four characters leave the
// board.
type Org struct {
	ID           string    `bun:"id"`
	Name         string    `bun:"name"`
	Halted       bool      `bun:"halted"`
	TermsVersion *string   `bun:"terms_version"`
	CreatedAt    time.Time `bun:"created_at"`
	SlackHint    *string   `bun:"slack_hint"` // "…" and the last 4 characters; nil when none is set
}

// GetOrg returns organization id, or not_found.
func (s *Service) GetOrg(ctx context.Context, tx bun.IDB, id string) (*Org, error) {
	var orgs []Org
	err := tx.NewRaw(`SELECT id, name, halted, terms_version, created_at,
		CASE WHEN slack_webhook_url IS NULL THEN NULL ELSE '…' || right(slack_webhook_url, 4) END AS slack_hint
		FROM orgs WHERE id = ?`, id).Scan(ctx, &orgs)
	if err != nil {
		return nil, err
	}
	if len(orgs) == 0 {
		return nil, errs.E(errs.NotFound, "organization %s does not exist", id)
	}
	return &orgs[0], nil
}

// OrgUpdate is what UpdateOrg changes; nil leaves a field as it is. A blank
// SlackWebhookURL removes the webhook.
type OrgUpdate struct {
	Name            *string
	SlackWebhookURL *string
}

// UpdateOrg renames the acting owner's organization or sets or clears its
// Slack webhook. The log says whether the webhook was set or cleared, never
// the URL. Refusals: forbidden; invalid_request (nothing to change, a name
// outside 1-80 characters, a webhook that is not
// https://hooks.slack.com/services/…).
func (s *Service) UpdateOrg(ctx context.Context, by string, upd OrgUpdate) (*Org, error) {
	payload := map[string]any{}
	if upd.Name != nil {
		upd.Name = ptrTo(strings.TrimSpace(*upd.Name))
		payload["name"] = *upd.Name
	}
	if upd.SlackWebhookURL != nil {
		upd.SlackWebhookURL = ptrTo(strings.TrimSpace(*upd.SlackWebhookURL))
		payload["slack_webhook"] = "set"
		if *upd.SlackWebhookURL == "" {
			payload["slack_webhook"] = "cleared"
		}
	}
	var out *Org
	err := s.Act(ctx, by, Owner, "admin.org.update", payload, func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
		switch {
		case upd.Name == nil && upd.SlackWebhookURL == nil:
			return errs.E(errs.InvalidRequest, "name something to change: name or slack_webhook_url")
		case upd.Name != nil && (*upd.Name == "" || len([]rune(*upd.Name)) > 80):
			return errs.E(errs.InvalidRequest, "an organization's name is 1-80 characters")
		case upd.SlackWebhookURL != nil && *upd.SlackWebhookURL != "" && !slackWebhook.MatchString(*upd.SlackWebhookURL):
			return errs.E(errs.InvalidRequest, "a Slack webhook is https://hooks.slack.com/services/… with no query; null or blank removes it")
		}
		_, err := tx.ExecContext(ctx, `UPDATE orgs SET name = coalesce(?, name),
			slack_webhook_url = CASE WHEN ? THEN nullif(?, '') ELSE slack_webhook_url END WHERE id = ?`,
			upd.Name, upd.SlackWebhookURL != nil, deref(upd.SlackWebhookURL), p.OrgID)
		if err != nil {
			return translate(err, "organization "+p.OrgID)
		}
		out, err = s.GetOrg(ctx, tx, p.OrgID)
		return err
	})
	return out, err
}
