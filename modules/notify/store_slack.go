package notify

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// The organizations' Slack webhooks, as this module reads them from
// core/identity's column orgs.slack_webhook_url (slackwebhook.go); it
// writes them through identity.SetOrgSecret.

// orgSlackWebhook is org's sealed Slack webhook, "" when it has none. Its
// callers say what failed.
func orgSlackWebhook(ctx context.Context, q bun.IDB, org string) (string, error) {
	var sealed []string
	if err := q.NewRaw(`SELECT coalesce(slack_webhook_url, '') FROM orgs WHERE id = ?`, org).Scan(ctx, &sealed); err != nil {
		return "", err
	}
	if len(sealed) == 0 {
		return "", nil
	}
	return sealed[0], nil
}

// orgWebhook is one organization's sealed Slack webhook.
type orgWebhook struct {
	ID  string `bun:"id"`
	URL string `bun:"slack_webhook_url"`
}

// slackWebhooksSet lists the organizations that have a Slack webhook, with
// it sealed.
func slackWebhooksSet(ctx context.Context, q bun.IDB) ([]orgWebhook, error) {
	var rows []orgWebhook
	if err := q.NewRaw(`SELECT id, slack_webhook_url FROM orgs WHERE slack_webhook_url IS NOT NULL`).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("notify.ResealOrgSecrets: %w", err)
	}
	return rows, nil
}
