package pacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/sdk/errs"
)

// pactRow is a pact as stored.
type pactRow struct {
	ID         string     `bun:"id"`
	OrgID      string     `bun:"org_id"`
	ProjectID  string     `bun:"project_id"`
	Name       string     `bun:"name"`
	Purpose    string     `bun:"purpose"`
	Rules      string     `bun:"rules"`
	OwnerHuman string     `bun:"owner_human"`
	CreatedBy  string     `bun:"created_by"`
	CreatedAt  time.Time  `bun:"created_at"`
	ClosedAt   *time.Time `bun:"closed_at"`
}

// seatRow is a seat as stored.
type seatRow struct {
	PactID      string     `bun:"pact_id"`
	Key         string     `bun:"key"`
	DisplayName string     `bun:"display_name"`
	Prefix      string     `bun:"prefix"`
	AgentID     *string    `bun:"agent_id"`
	HumanID     *string    `bun:"human_id"`
	InvitedBy   string     `bun:"invited_by"`
	JoinedAt    *time.Time `bun:"joined_at"`
	RemovedAt   *time.Time `bun:"removed_at"`
	PausedAt    *time.Time `bun:"paused_at"`
	PausedBy    *string    `bun:"paused_by"`
	Handshake   string     `bun:"handshake"`
	NextNumber  int        `bun:"next_number"`
	ReadUpto    int64      `bun:"read_upto"`
	WriteUpto   int64      `bun:"write_upto"`
}

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
	var pos feedPos
	err := tx.NewRaw(`WITH acting AS (SELECT set_config('pact.actor', ?, true)), f AS (
		INSERT INTO pact_feed (pact_id, kind, ref, seat_key, actor, excerpt)
		SELECT ?, ?, ?, ?, ?, ? FROM acting RETURNING id, seq, pact_id, seat_key, actor)`+feedDelivery(),
		f.Actor, f.PactID, f.Kind, f.Ref, f.SeatKey, f.Actor, excerpt(f.Excerpt), events.Channel, events.KindPact).Scan(ctx, &pos.ID, &pos.Seq)
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

// getPact reads pact id in org, locking its row when lock is set.
func getPact(ctx context.Context, tx bun.IDB, org, id string, lock bool) (*pactRow, error) {
	q := `SELECT id, org_id, project_id, name, purpose, rules, owner_human, created_by, created_at, closed_at
		FROM pacts WHERE id::text = ? AND org_id = ?`
	if lock {
		q += ` FOR NO KEY UPDATE`
	}
	var p pactRow
	if err := tx.NewRaw(q, id, org).Scan(ctx, &p); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("pacts: read pact %s: %w", id, err)
	}
	return &p, nil
}

const seatColumns = `pact_id, key, display_name, prefix, agent_id, human_id, invited_by, joined_at, removed_at,
	paused_at, paused_by, handshake, next_number, read_upto, write_upto`

// seats reads the seats of pact, in the order they were made.
func seats(ctx context.Context, tx bun.IDB, pact string) ([]seatRow, error) {
	var out []seatRow
	err := tx.NewRaw(`SELECT `+seatColumns+` FROM pact_seats WHERE pact_id = ? ORDER BY invited_at, key`, pact).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the seats of %s: %w", pact, err)
	}
	return out, nil
}

// seatsOf reads the seats of every pact in ids in one statement, each
// pact's in the order they were made.
func seatsOf(ctx context.Context, tx bun.IDB, ids []string) (map[string][]seatRow, error) {
	var rows []seatRow
	err := tx.NewRaw(`SELECT `+seatColumns+` FROM pact_seats WHERE pact_id::text = ANY(?) ORDER BY pact_id, invited_at, key`,
		pgdialect.Array(ids)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the seats of %d pacts: %w", len(ids), err)
	}
	out := make(map[string][]seatRow, len(ids))
	for _, r := range rows {
		out[r.PactID] = append(out[r.PactID], r)
	}
	return out, nil
}

// seatOf reads a's seat in pact (nil when it has none), locking it when
// lock is set: a seat's writes are serialized on its row, which keeps its
// numbers gap-free and its rate count exact.
func seatOf(ctx context.Context, tx bun.IDB, pact string, a Actor, lock bool) (*seatRow, error) {
	col, id := a.column()
	q := `SELECT ` + seatColumns + ` FROM pact_seats WHERE pact_id = ? AND ` + col + ` = ?`
	if lock {
		q += ` FOR NO KEY UPDATE`
	}
	var s seatRow
	if err := tx.NewRaw(q, pact, id).Scan(ctx, &s); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("pacts: read the seat of %s in %s: %w", a, pact, err)
	}
	return &s, nil
}

// pauseSeats reads, locked, agent's seat in pact and the seat key (one row
// when they are the same, fewer when either is missing). Both rows are
// locked in one statement in key order, so two agents pausing each other
// at once wait for one another instead of deadlocking.
func pauseSeats(ctx context.Context, tx bun.IDB, pact, agent, key string) ([]seatRow, error) {
	var out []seatRow
	err := tx.NewRaw(`SELECT `+seatColumns+` FROM pact_seats WHERE pact_id = ? AND (agent_id = ? OR key = ?)
		ORDER BY key FOR NO KEY UPDATE`, pact, agent, key).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the seats of agent:%s and %s in %s: %w", agent, key, pact, err)
	}
	return out, nil
}

// setSeatPaused pauses (keeping an earlier pause's time) or wakes seat key
// of pact as by, reporting false when it has no such seat or it was
// removed. The pause's holder is by, so a later call can tell a person's
// pause from an agent's.
func setSeatPaused(ctx context.Context, tx bun.IDB, pact, key, by string, paused bool) (bool, error) {
	set := `paused_at = NULL, paused_by = ?`
	if paused {
		set = `paused_at = coalesce(paused_at, clock_timestamp()), paused_by = ?`
	}
	res, err := tx.ExecContext(ctx, `UPDATE pact_seats SET `+set+` WHERE pact_id = ? AND key = ? AND removed_at IS NULL`, by, pact, key)
	if err != nil {
		return false, fmt.Errorf("pacts: pause %s in %s: %w", key, pact, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("pacts: pause %s in %s: %w", key, pact, err)
	}
	return n > 0, nil
}

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

// notFound is the refusal for a pact the actor cannot see; it names the
// projects that were searched, which is usually the whole explanation.
func notFound(id string, searched []string) error {
	return errs.E(errs.NotFound, "no pact %s in the projects searched (%s): a pact reaches you only in a project "+
		"you and it share, under a mandate with pact.read there", id, list(searched))
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// pactOf finds, in org, the pact named by id or else the pact of decision
// decision, and its project; "" when there is none.
func pactOf(ctx context.Context, d bun.IDB, org, id, decision string) (pact, project string, err error) {
	var rows []struct {
		ID        string `bun:"id"`
		ProjectID string `bun:"project_id"`
	}
	err = d.NewRaw(`SELECT p.id::text AS id, p.project_id FROM pacts p
		WHERE p.org_id = ? AND (p.id::text = ? OR p.id = (SELECT pact_id FROM pact_decisions WHERE id::text = ?))`,
		org, id, decision).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return "", "", err
	}
	return rows[0].ID, rows[0].ProjectID, nil
}
