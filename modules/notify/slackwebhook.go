package notify

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/core/seams"
)

// The organization's Slack webhook URL is a secret the board reads back to
// deliver, so this module alone seals and opens it (core/seal). The column,
// orgs.slack_webhook_url, is core/identity's: the module reads it where it
// delivers and writes it through identity.SetOrgSecret.

// slackColumn is the orgs column holding the sealed webhook.
const slackColumn = "slack_webhook_url"

// slackPlace is where an organization's Slack webhook URL is sealed for:
// the column and the organization.
func slackPlace(orgID string) string { return "orgs.slack_webhook_url/" + orgID }

// slackWebhooks answers seams.SlackWebhooks for the organization's
// settings (the people module).
type slackWebhooks struct {
	box   *seal.Box
	ident *identity.Service
}

// SlackWebhooks is the keeper of Slack webhooks the module provides
// (seams.SlackWebhooksSeam): sealing with the service's box, writing
// through ident.
func (s *Service) SlackWebhooks(ident *identity.Service) seams.SlackWebhooks {
	return slackWebhooks{box: s.opts.Seal, ident: ident}
}

// SetSlackWebhook seals url for org and stores it; "" removes it.
func (w slackWebhooks) SetSlackWebhook(ctx context.Context, tx bun.IDB, org, url string) error {
	var sealed *string
	if url != "" {
		v, err := w.box.Seal(url, slackPlace(org))
		if err != nil {
			return fmt.Errorf("seal the Slack webhook of %s: %w", org, err)
		}
		sealed = &v
	}
	_, err := w.ident.SetOrgSecret(ctx, tx, org, slackColumn, sealed, nil)
	return err
}

// SlackHint is "…" and the webhook's last 4 characters, a note to set it
// again when it no longer opens (sealed under a key that left the
// keyring), or nil when org has none.
func (w slackWebhooks) SlackHint(ctx context.Context, tx bun.IDB, org string) (*string, error) {
	sealed, err := orgSlackWebhook(ctx, tx, org)
	if err != nil {
		return nil, fmt.Errorf("notify.SlackHint: %w", err)
	}
	if sealed == "" {
		return nil, nil
	}
	hint := "unreadable (sealed under a retired board key): set it again"
	if u, err := w.box.Open(sealed, slackPlace(org)); err == nil {
		r := []rune(u)
		hint = "…" + string(r[max(0, len(r)-4):])
	}
	return &hint, nil
}

// ResealOrgSecrets seals again every organization's Slack webhook that is
// not sealed under the board's active key: values written before sealing,
// or under a key rotated out of first place. A value another process
// changed meanwhile is left to it. Values that no longer open (their key
// left the keyring) are left as they are; their hint says to set them
// again. It returns how many it sealed.
func (s *Service) ResealOrgSecrets(ctx context.Context, ident *identity.Service) (int, error) {
	rows, err := slackWebhooksSet(ctx, s.db)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		if !s.opts.Seal.Stale(r.URL) {
			continue
		}
		sealed, err := s.opts.Seal.Reseal(r.URL, slackPlace(r.ID))
		if err != nil {
			continue // no longer opens: its hint says to set it again
		}
		changed, err := ident.SetOrgSecret(ctx, s.db, r.ID, slackColumn, &sealed, &r.URL)
		if err != nil {
			return n, err
		}
		if changed {
			n++
		}
	}
	return n, nil
}
