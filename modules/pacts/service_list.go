package pacts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/sdk/errs"
)

// Summary is one pact in list_pacts.
type Summary struct {
	ID            string  `bun:"id" json:"id" jsonschema:"The pact's id."`
	Name          string  `bun:"name" json:"name" jsonschema:"Its name."`
	ProjectID     string  `bun:"project_id" json:"project_id" jsonschema:"Its project."`
	Purpose       string  `bun:"purpose" json:"purpose" jsonschema:"The first two lines of its purpose."`
	YourSeat      string  `bun:"seat_key" json:"your_seat" jsonschema:"Your seat's key."`
	YourState     string  `bun:"state" json:"your_state" jsonschema:"invited (take it with join_pact), joined or paused."`
	Seats         int     `bun:"seats" json:"seats" jsonschema:"How many seats it has (removed ones included)."`
	OpenDecisions int     `bun:"open_decisions" json:"open_decisions" jsonschema:"How many of its decisions wait for a person."`
	Unread        int     `bun:"unread" json:"unread" jsonschema:"Messages by others since you last read it."`
	Latest        *string `bun:"latest" json:"latest_message,omitempty" jsonschema:"Its latest message's number."`
	Closed        bool    `bun:"closed" json:"closed" jsonschema:"Whether a person closed it."`

	LatestAt *time.Time `bun:"latest_at" json:"-"`
}

// List returns the pacts a sits in, and those with a seat waiting for it,
// in the projects it may read pacts in.
func (s *Service) List(ctx context.Context, tx bun.IDB, a Actor, acc Access) ([]Summary, error) {
	col, id := a.column()
	var out []Summary
	err := tx.NewRaw(`SELECT p.id::text AS id, p.name, p.project_id, p.purpose, st.key AS seat_key,
			CASE WHEN st.joined_at IS NULL THEN 'invited' WHEN st.paused_at IS NOT NULL THEN 'paused' ELSE 'joined' END AS state,
			(SELECT count(*) FROM pact_seats x WHERE x.pact_id = p.id) AS seats,
			(SELECT count(*) FROM pact_decisions d WHERE d.pact_id = p.id AND d.answer IS NULL) AS open_decisions,
			(SELECT count(*) FROM pact_messages m WHERE m.pact_id = p.id AND m.feed_id > st.read_upto AND m.seat_key <> st.key) AS unread,
			l.number AS latest, l.created_at AS latest_at, p.closed_at IS NOT NULL AS closed
		FROM pact_seats st JOIN pacts p ON p.id = st.pact_id
		LEFT JOIN LATERAL (SELECT number, created_at FROM pact_messages m WHERE m.pact_id = p.id ORDER BY feed_id DESC LIMIT 1) l ON true
		WHERE st.`+col+` = ? AND st.removed_at IS NULL AND p.org_id = ? AND p.project_id = ANY(?)
		ORDER BY p.closed_at IS NOT NULL, coalesce(l.created_at, p.created_at) DESC`, id, a.Org, pgdialect.Array(acc.Read)).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: list the pacts of %s: %w", a, err)
	}
	for i := range out {
		out[i].Purpose = firstLines(out[i].Purpose, 2)
	}
	if out == nil {
		out = []Summary{}
	}
	return out, nil
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// SetPaused pauses or wakes the job of seat key in pact: while paused, the
// seat's writes are refused. The adapter has checked that the actor (or
// the agent's person) is an owner or approver.
func (s *Service) SetPaused(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact, key string, paused bool) (int64, error) {
	p, err := s.reach(ctx, tx, a, acc, pact, false)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(acc.Write, p.ProjectID) {
		return 0, errs.E(errs.ScopeExceeded, "pausing a job in pact %s needs pact.write@project:%s", p.ID, p.ProjectID)
	}
	var set string
	if paused {
		set = `paused_at = coalesce(paused_at, clock_timestamp()), paused_by = ?`
	} else {
		set = `paused_at = NULL, paused_by = ?`
	}
	res, err := tx.ExecContext(ctx, `UPDATE pact_seats SET `+set+` WHERE pact_id = ? AND key = ? AND removed_at IS NULL`, a.String(), p.ID, key)
	if err != nil {
		return 0, fmt.Errorf("pacts: pause %s in %s: %w", key, p.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, errs.E(errs.NotFound, "pact %s has no seat %s (or it was removed)", p.ID, key)
	}
	what := "woken"
	if paused {
		what = "paused"
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "seat", Ref: key, Actor: a.String(), Excerpt: key + " " + what})
	return pos.Seq, err
}
