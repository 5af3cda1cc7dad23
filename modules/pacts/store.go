package pacts

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
)

// The module's store: its SQL, and only its SQL, lives in the files named
// store*.go (docs/architecture.md, "A service and a store per module"), by
// what they hold: this one the feed (pact_feed), every change's row;
// store_pacts.go the pacts, store_seats.go their seats, store_thread.go
// the thread, the decisions and the zones, store_undo.go the zone and
// handshake writes that Undo reads back, store_jobs.go the lists of pacts,
// store_settings.go the settings, store_delivery.go, store_sends.go and
// store_stream.go how agents hear of changes, and store_nudges.go the
// unread nudges. Every statement speaks bun's ? placeholders.

// pactLocks is the first key of the pacts module's two-key advisory locks
// (a key space apart from the one-key locks the rest of the board takes).
// The feed's own lock, per organization, is taken by the trigger that
// numbers each row (migration 029: key 1702 and the organization's hash).
const pactLocks = 1701

// feedItem is one change to a pact.
type feedItem struct {
	ID      int64     `bun:"id" json:"id" jsonschema:"The change's id: a cursor for get_pact's since."`
	PactID  string    `bun:"pact_id" json:"pact_id" jsonschema:"The pact."`
	Kind    string    `bun:"kind" json:"kind" jsonschema:"message, section, decision, answer, handshake, seat or pact."`
	Ref     string    `bun:"ref" json:"ref,omitempty" jsonschema:"What changed: a message number, a section's seat key, a decision id."`
	SeatKey *string   `bun:"seat_key" json:"seat,omitempty" jsonschema:"The seat that made the change, if a seat did."`
	Actor   string    `bun:"actor" json:"actor" jsonschema:"Who: agent:<id> or human:<id>."`
	Excerpt string    `bun:"excerpt" json:"excerpt,omitempty" jsonschema:"Its first 400 characters."`
	At      time.Time `bun:"at" json:"at" jsonschema:"When."`
}

// excerpt is the first 400 characters of s.
func excerpt(s string) string {
	if utf8.RuneCountInString(s) <= 400 {
		return s
	}
	return string([]rune(s)[:400])
}

// feedPos is where an appended change sits in the feed: ID is the row's
// id, which the module keeps in its own cursors (read_upto, feed_id, ...);
// Seq is its number in the organization's feed, the only one that leaves
// the board (migration 029).
type feedPos struct {
	ID, Seq int64
}

// appendFeed records one change to a pact and returns where it sits. The
// insert's trigger numbers it in the organization's feed under the
// organization's lock (migration 029); the session acts as f.Actor for the
// triggers that check who changes a row (migration 017); the same
// statement queues its webhook sends and wakes the streams (feedDelivery).
func appendFeed(ctx context.Context, tx bun.IDB, f feedItem) (feedPos, error) {
	return appendFeedWith(ctx, tx, f, "")
}

// appendFeedWith is appendFeed with the change the row records made by the
// same statement: with is further CTEs (", name AS (...)"), which reach
// the new row as f, and args their arguments. A CTE that changes a row a
// trigger guards (migration 017) takes f in its FROM: that is what runs
// it after the session is set to act as f.Actor. The organization's lock
// is then held for one round trip fewer than with the change sent apart.
func appendFeedWith(ctx context.Context, tx bun.IDB, f feedItem, with string, args ...any) (feedPos, error) {
	var pos feedPos
	all := append([]any{f.Actor, f.PactID, f.Kind, f.Ref, f.SeatKey, f.Actor, excerpt(f.Excerpt)}, args...)
	err := tx.NewRaw(`WITH acting AS (SELECT set_config('pact.actor', ?, true)), f AS (
		INSERT INTO pact_feed (pact_id, kind, ref, seat_key, actor, excerpt)
		SELECT ?, ?, ?, ?, ?, ? FROM acting RETURNING id, seq, pact_id, seat_key, actor)`+with+feedDelivery(),
		append(all, events.Channel, events.KindPact)...).Scan(ctx, &pos.ID, &pos.Seq)
	if err != nil {
		return feedPos{}, fmt.Errorf("pacts: append to the feed of %s: %w", f.PactID, err)
	}
	return pos, nil
}

// feedBound is the id of org's newest feed row numbered seq or lower, 0
// when there is none: a number an agent passes back (since, before) as
// the id the module's own columns compare with. Within an organization
// ids and numbers rise together (migration 029), so its rows after the
// bound are exactly those numbered after seq.
func feedBound(ctx context.Context, tx bun.IDB, org string, seq int64) (int64, error) {
	if seq <= 0 {
		return 0, nil
	}
	var ids []int64
	if err := tx.NewRaw(`SELECT id FROM pact_feed WHERE org_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1`,
		org, seq).Scan(ctx, &ids); err != nil {
		return 0, fmt.Errorf("pacts: find feed number %d of %s: %w", seq, org, err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return ids[0], nil
}

// feedBoundSQL is feedBound as a subquery taking (org, seq), for a
// statement that compares the module's ids with a number an agent passed
// back: the bound costs it no round trip of its own.
const feedBoundSQL = `coalesce((SELECT id FROM pact_feed WHERE org_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1), 0)`

// others returns what others than seat wrote in pact after cursor, oldest
// first, at most limit items, and moves the seat's write cursor to upto in
// the same statement. cursor and upto are ids; the items carry their
// numbers in the organization's feed.
func others(ctx context.Context, tx bun.IDB, pact, seat string, cursor, upto int64, limit int) ([]feedItem, error) {
	var out []feedItem
	err := tx.NewRaw(`WITH moved AS (UPDATE pact_seats SET write_upto = ? WHERE pact_id = ? AND key = ?)
		SELECT seq AS id, pact_id, kind, ref, seat_key, actor, excerpt, at FROM pact_feed
		WHERE pact_id = ? AND id > ? AND id <= ? AND seat_key IS DISTINCT FROM ? ORDER BY id LIMIT ?`,
		upto, pact, seat, pact, cursor, upto, seat, limit).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read what others wrote in %s: %w", pact, err)
	}
	return out, nil
}

// recentWrites counts seat's writes in pact in the last minute, up to
// limit, and answers how many seconds until the oldest of them is a
// minute old.
func recentWrites(ctx context.Context, tx bun.IDB, pact, seat string, limit int) (n int, wait float64, err error) {
	err = tx.NewRaw(`SELECT count(*), coalesce(extract(epoch FROM min(at) + interval '1 minute' - clock_timestamp()), 0)
		FROM (SELECT at FROM pact_feed WHERE pact_id = ? AND seat_key = ? AND kind IN ('message', 'section', 'decision', 'handshake')
		      AND at > clock_timestamp() - interval '1 minute' ORDER BY at DESC LIMIT ?) recent`,
		pact, seat, limit).Scan(ctx, &n, &wait)
	if err != nil {
		return 0, 0, fmt.Errorf("pacts: count the writes of %s in %s: %w", seat, pact, err)
	}
	return n, wait, nil
}
