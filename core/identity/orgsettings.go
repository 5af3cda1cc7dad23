package identity

import (
	"context"
	"errors"
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
// secret, sealed in the database (core/seal): only whether it is set and
// its last four characters leave the board.
type Org struct {
	ID           string    `bun:"id"`
	Name         string    `bun:"name"`
	Halted       bool      `bun:"halted"`
	TermsVersion *string   `bun:"terms_version"`
	CreatedAt    time.Time `bun:"created_at"`
	SlackHint    *string   `bun:"-"` // "…" and the last 4 characters; nil when none is set
}

// SlackWebhookPlace is where an organization's Slack webhook URL is sealed
// for (core/seal): the column and the organization.
func SlackWebhookPlace(orgID string) string { return "orgs.slack_webhook_url/" + orgID }

// GetOrg returns organization id, or not_found.
func (s *Service) GetOrg(ctx context.Context, tx bun.IDB, id string) (*Org, error) {
	var rows []struct {
		Org
		SlackWebhook *string `bun:"slack_webhook_url"` // sealed
	}
	err := tx.NewRaw(`SELECT id, name, halted, terms_version, created_at, slack_webhook_url
		FROM orgs WHERE id = ?`, id).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errs.E(errs.NotFound, "organization %s does not exist", id)
	}
	o := rows[0].Org
	if sealed := rows[0].SlackWebhook; sealed != nil {
		hint := "unreadable (sealed under a retired board key): set it again"
		if s.box != nil {
			if u, err := s.box.Open(*sealed, SlackWebhookPlace(id)); err == nil {
				r := []rune(u)
				hint = "…" + string(r[max(0, len(r)-4):])
			}
		}
		o.SlackHint = &hint
	}
	return &o, nil
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
		var sealed *string
		if u := deref(upd.SlackWebhookURL); u != "" {
			v, err := s.seal(u, SlackWebhookPlace(p.OrgID))
			if err != nil {
				return err
			}
			sealed = &v
		}
		_, err := tx.ExecContext(ctx, `UPDATE orgs SET name = coalesce(?, name),
			slack_webhook_url = CASE WHEN ? THEN ? ELSE slack_webhook_url END WHERE id = ?`,
			upd.Name, upd.SlackWebhookURL != nil, sealed, p.OrgID)
		if err != nil {
			return translate(err, "organization "+p.OrgID)
		}
		out, err = s.GetOrg(ctx, tx, p.OrgID)
		return err
	})
	return out, err
}

// seal seals a secret the board keeps for place.
func (s *Service) seal(plain, place string) (string, error) {
	if s.box == nil {
		return "", errors.New("identity: no keyring to seal secrets with (NewService without mandates)")
	}
	return s.box.Seal(plain, place)
}

// ResealOrgSecrets seals again every organization's Slack webhook that is
// not sealed under the board's active key: values written before sealing,
// or under a key rotated out of first place. A value another process
// changed meanwhile is left to it. Values that no longer open (their key
// left the keyring) are left as they are; GetOrg says to set them again.
// It returns how many it sealed.
func (s *Service) ResealOrgSecrets(ctx context.Context) (int, error) {
	if s.box == nil {
		return 0, nil
	}
	var rows []struct {
		ID  string `bun:"id"`
		URL string `bun:"slack_webhook_url"`
	}
	if err := s.db.NewRaw(`SELECT id, slack_webhook_url FROM orgs WHERE slack_webhook_url IS NOT NULL`).Scan(ctx, &rows); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		if !s.box.Stale(r.URL) {
			continue
		}
		sealed, err := s.box.Reseal(r.URL, SlackWebhookPlace(r.ID))
		if err != nil {
			continue // no longer opens: GetOrg says to set it again
		}
		res, err := s.db.ExecContext(ctx, `UPDATE orgs SET slack_webhook_url = ? WHERE id = ? AND slack_webhook_url = ?`,
			sealed, r.ID, r.URL)
		if err != nil {
			return n, err
		}
		if k, _ := res.RowsAffected(); k == 1 {
			n++
		}
	}
	return n, nil
}
