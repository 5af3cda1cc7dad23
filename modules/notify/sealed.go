package notify

import (
	"context"
	"fmt"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// destinationPlace is where a destination's column is sealed for
// (core/seal): the column and the organization.
func destinationPlace(column, orgID string) string {
	return "notify_destinations." + column + "/" + orgID
}

// openTarget replaces t's sealed URL and secret with their plain text. The
// organization's Slack webhook falls back to PACT_SLACK_WEBHOOK_URL in the
// default organization. A value that no longer opens is kept as
// t.unreadable, which refuses its deliveries for good.
func (s *Service) openTarget(orgID string, t *target) {
	urlPlace, secretPlace := destinationPlace("url", orgID), destinationPlace("secret", orgID)
	if t.Key == "slack" {
		if t.URL == "" {
			if orgID == "default" {
				t.URL = s.opts.SlackWebhookURL
			}
			return
		}
		urlPlace = slackPlace(orgID)
	}
	u, err := s.opts.Seal.Open(t.URL, urlPlace)
	if err == nil && t.Secret != nil {
		var secret string
		if secret, err = s.opts.Seal.Open(*t.Secret, secretPlace); err == nil {
			t.Secret = &secret
		}
	}
	if err != nil {
		t.URL, t.Secret = "unreadable", nil
		t.unreadable = errs.E(errs.InvalidRequest, "%v", err)
		return
	}
	t.URL = u
}

// resealAll seals again what is not sealed under the board's active key:
// the organizations' Slack webhooks (written through core/identity) and the destinations'
// URLs and secrets. It runs once at start; an error is retried.
func (s *Service) resealAll(ctx context.Context, people *identity.Service) error {
	orgs, err := s.ResealOrgSecrets(ctx, people)
	if err != nil {
		return fmt.Errorf("reseal Slack webhooks: %w", err)
	}
	dests, err := s.ResealDestinations(ctx)
	if err != nil {
		return fmt.Errorf("reseal destinations: %w", err)
	}
	if orgs+dests > 0 {
		s.logger.Info("sealed stored secrets under the board's active key", "slack_webhooks", orgs, "destinations", dests)
	}
	return nil
}

// ResealDestinations seals again every destination URL and secret that is
// not sealed under the active key, and returns how many rows it changed. A
// row another process changed meanwhile is left to it; a value that no
// longer opens is left as it is (its deliveries say to add it again).
func (s *Service) ResealDestinations(ctx context.Context) (int, error) {
	rows, err := sealedDestinations(ctx, s.db)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		if !s.opts.Seal.Stale(r.URL) && (r.Secret == nil || !s.opts.Seal.Stale(*r.Secret)) {
			continue
		}
		url, err := s.opts.Seal.Reseal(r.URL, destinationPlace("url", r.OrgID))
		if err != nil {
			continue
		}
		var secret *string
		if r.Secret != nil {
			v, err := s.opts.Seal.Reseal(*r.Secret, destinationPlace("secret", r.OrgID))
			if err != nil {
				continue
			}
			secret = &v
		}
		changed, err := resealDestination(ctx, s.db, r, url, secret)
		if err != nil {
			return n, err
		}
		if changed {
			n++
		}
	}
	return n, nil
}
