package pacts

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The webhook sends (pact_sends): queued by appendFeed (feedDelivery),
// claimed under a lease by the delivery workers of every board process,
// and settled by the worker that holds the lease (webhook.go).

// sendRow is a claimed send with what delivering it needs.
type sendRow struct {
	ID       int64  `bun:"id"`
	AgentID  string `bun:"agent_id"`
	FeedID   int64  `bun:"feed_id"`
	Attempts int    `bun:"attempts"`
}

// nextSendIn is how long until the next pending send falls due (or its
// lease runs out), nil when none is pending; negative when one is due.
func nextSendIn(ctx context.Context, d bun.IDB) (*float64, error) {
	var secs *float64
	if err := d.NewRaw(`SELECT extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_expires_at, next_attempt_at)) - now()))::float8
		FROM pact_sends WHERE sent_at IS NULL AND dead_at IS NULL`).Scan(ctx, &secs); err != nil {
		return nil, fmt.Errorf("pacts: next webhook send: %w", err)
	}
	return secs, nil
}

// claimDueSend takes the next due send of an agent with a delivery
// setting, leased to owner for lease; nil when none is due.
func claimDueSend(ctx context.Context, d bun.IDB, owner string, lease time.Duration) (*sendRow, error) {
	var rows []sendRow
	err := d.NewRaw(`UPDATE pact_sends q SET attempts = q.attempts + 1, lease_owner = ?,
			lease_expires_at = now() + make_interval(secs => ?)
		FROM (SELECT s.id FROM pact_sends s JOIN pact_delivery d ON d.agent_id = s.agent_id
		      WHERE s.sent_at IS NULL AND s.dead_at IS NULL AND s.next_attempt_at <= now()
		        AND (s.lease_expires_at IS NULL OR s.lease_expires_at <= now())
		      ORDER BY s.next_attempt_at LIMIT 1 FOR UPDATE OF s SKIP LOCKED) c
		WHERE q.id = c.id RETURNING q.id, q.agent_id, q.feed_id, q.attempts`,
		owner, lease.Seconds()).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pacts: claim a webhook send: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// sendSent settles send id, leased to owner, as delivered.
func sendSent(ctx context.Context, tx bun.IDB, id int64, owner string) error {
	return endLease(ctx, tx, id, owner, `sent_at = now()`, nil)
}

// sendDead settles send id, leased to owner, as never to go out, and why.
func sendDead(ctx context.Context, tx bun.IDB, id int64, owner, why string) error {
	return endLease(ctx, tx, id, owner, `dead_at = now()`, &why)
}

// sendLater puts send id, leased to owner, back for another attempt after
// wait, with why the last one failed.
func sendLater(ctx context.Context, tx bun.IDB, id int64, owner string, wait time.Duration, why string) error {
	return endLease(ctx, tx, id, owner, fmt.Sprintf(`next_attempt_at = now() + make_interval(secs => %f)`, wait.Seconds()), &why)
}

// endLease ends owner's lease on send id with set, a fixed assignment of
// this file's.
func endLease(ctx context.Context, tx bun.IDB, id int64, owner, set string, lastError *string) error {
	if lastError != nil && *lastError == "" {
		lastError = nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE pact_sends SET `+set+`, last_error = ?, lease_expires_at = NULL
		WHERE id = ? AND lease_owner = ? AND sent_at IS NULL AND dead_at IS NULL`, lastError, id, owner)
	if err != nil {
		return fmt.Errorf("pacts: settle webhook send %d: %w", id, err)
	}
	return nil
}

// dropPendingSends settles every pending send of agent as never to go out:
// its webhook was switched off.
func dropPendingSends(ctx context.Context, tx bun.IDB, agent string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE pact_sends SET dead_at = now(), last_error = 'the webhook was switched off'
		WHERE agent_id = ? AND sent_at IS NULL AND dead_at IS NULL`, agent); err != nil {
		return fmt.Errorf("pacts: drop the pending sends of %s: %w", agent, err)
	}
	return nil
}
