package notify

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// The rows of a notification's deliveries (notification_deliveries, one per
// destination that settled) and the destinations a delivery reaches.

// deliveryTargets lists the destinations of org a notification id goes to
// now: the organization's Slack webhook (sealed, "" when it has none; sent
// through the plugin slackNotifier) and its enabled destinations, oldest
// first, each with what the notification's earlier attempts settled there.
// The values are as stored: sealed.
func deliveryTargets(ctx context.Context, q bun.IDB, slackNotifier, org string, id int64) ([]target, error) {
	var ts []target
	err := q.NewRaw(`SELECT t.key, t.notifier, t.url, t.secret, t.options::text AS options,
		       x.sent_at IS NOT NULL AS sent, x.failed_at IS NOT NULL AS failed, x.detail
		FROM (SELECT 'slack'::text AS key, ?::text AS notifier, coalesce(o.slack_webhook_url, '') AS url,
		             NULL::text AS secret, '{}'::jsonb AS options, 0::bigint AS ord
		      FROM orgs o WHERE o.id = ?
		      UNION ALL
		      SELECT 'd' || d.id, d.notifier, d.url, d.secret, d.options, d.id
		      FROM notify_destinations d WHERE d.org_id = ? AND d.disabled_at IS NULL) t
		LEFT JOIN notification_deliveries x ON x.notification_id = ? AND x.destination = t.key
		ORDER BY t.ord`,
		slackNotifier, org, org, id).Scan(ctx, &ts)
	if err != nil {
		return nil, fmt.Errorf("notify.targets: %w", err)
	}
	return ts, nil
}

// insertDeliveryOutcome records that notification id was sent to the
// destination key (or refused there for good: sent false), with the
// receiver's status and detail when it gave them. A destination settled
// already keeps its first record.
func insertDeliveryOutcome(ctx context.Context, q bun.IDB, id int64, key string, sent bool, status *int, detail *string) error {
	at := `now(), NULL`
	if !sent {
		at = `NULL, now()`
	}
	_, err := q.ExecContext(ctx, `INSERT INTO notification_deliveries (notification_id, destination, sent_at, failed_at, status, detail)
		VALUES (?, ?, `+at+`, ?, ?) ON CONFLICT DO NOTHING`, id, key, status, detail)
	return err
}
