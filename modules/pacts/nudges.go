package pacts

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/outbox"
)

// Unread nudges (docs/pacts.md "People's side"): when no other participant
// has read a message by the time the pact owner's threshold has passed
// (pact_person_settings, 30 minutes by default), the owner is told, at most
// once an hour per pact and once per message (migration 019).

// NudgeEvery is how often the worker looks for unread messages.
const NudgeEvery = time.Minute

// nudged is one pact the sweep claimed a nudge for.
type nudged struct {
	ID        string `bun:"id"`
	ProjectID string `bun:"project_id"`
	Name      string `bun:"name"`
	Owner     string `bun:"owner_human"`
	Unread    int    `bun:"unread"`
	Oldest    string `bun:"oldest"`
}

// SweepNudges tells each open pact's owner of the messages nobody else has
// read in time, and returns how many owners it told. It is safe with
// several board processes: a pact's nudge is claimed by one atomic UPDATE
// whose condition (an hour since the last) is rechecked on the locked row,
// and the notices are enqueued in the claiming transaction.
func (m *Module) SweepNudges(ctx context.Context) (int, error) {
	now := m.ident.Now()
	n := 0
	err := m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var due []nudged
		// A message is unread when no other joined, unremoved seat has read
		// up to it; due when it is older than the owner's threshold.
		err := tx.NewRaw(`WITH due AS (
				SELECT p.id, count(*) AS unread, max(m.feed_id) AS upto,
					(array_agg(m.number ORDER BY m.feed_id))[1] AS oldest
				FROM pacts p
				LEFT JOIN pact_person_settings ps ON ps.human_id = p.owner_human
				JOIN pact_messages m ON m.pact_id = p.id AND m.feed_id > p.nudged_upto
					AND m.created_at <= ?::timestamptz - coalesce(ps.nudge_after, interval '30 minutes')
				WHERE p.closed_at IS NULL AND (p.nudged_at IS NULL OR p.nudged_at <= ?::timestamptz - interval '1 hour')
				  AND NOT EXISTS (SELECT 1 FROM pact_seats s WHERE s.pact_id = p.id AND s.key <> m.seat_key
					AND s.joined_at IS NOT NULL AND s.removed_at IS NULL AND s.read_upto >= m.feed_id)
				GROUP BY p.id)
			UPDATE pacts p SET nudged_at = ?, nudged_upto = due.upto FROM due
			WHERE p.id = due.id AND p.closed_at IS NULL
			  AND (p.nudged_at IS NULL OR p.nudged_at <= ?::timestamptz - interval '1 hour') AND p.nudged_upto < due.upto
			RETURNING p.id::text AS id, p.project_id, p.name, p.owner_human, due.unread, due.oldest`,
			now, now, now, now).Scan(ctx, &due)
		if err != nil {
			return fmt.Errorf("pacts: claim the unread nudges: %w", err)
		}
		for _, d := range due {
			title := fmt.Sprintf("Nobody else has read %d message(s) in pact %s", d.Unread, d.Name)
			if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.PactUnread, HumanID: d.Owner, ProjectID: d.ProjectID,
				Title: title, Detail: d.Oldest + " and what follows wait unread in pact " + d.ID}); err != nil {
				return fmt.Errorf("pacts: nudge %s: %w", d.Owner, err)
			}
		}
		n = len(due)
		return nil
	})
	return n, err
}

// nudgeLoop sweeps every NudgeEvery until ctx ends.
func (m *Module) nudgeLoop(logger hclog.Logger) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := m.SweepNudges(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			if n > 0 {
				logger.Info("nudged pact owners of unread messages", "count", n)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(NudgeEvery):
			}
		}
	}
}
