package pacts

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// nudged is one pact the sweep claimed a nudge for.
type nudged struct {
	ID        string `bun:"id"`
	ProjectID string `bun:"project_id"`
	Name      string `bun:"name"`
	Owner     string `bun:"owner_human"`
	Unread    int    `bun:"unread"`
	Oldest    string `bun:"oldest"`
}

// claimNudges claims, as of now, a nudge for each open pact that has
// messages older than its owner's threshold (pact_person_settings, 30
// minutes by default) that no other joined, unremoved seat has read, and
// was not nudged in the last hour nor about these messages. A pact's claim
// is one UPDATE whose condition is rechecked on the locked row, so
// concurrent sweeps claim it once.
func claimNudges(ctx context.Context, tx bun.IDB, now time.Time) ([]nudged, error) {
	var due []nudged
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
		return nil, fmt.Errorf("pacts: claim the unread nudges: %w", err)
	}
	return due, nil
}
