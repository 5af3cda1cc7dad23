package pacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
)

// Delivery modes (docs/pacts.md, "Delivery without polling").
const (
	ModeStream = "stream"
	// ModeChannel is mode stream held by pact-channel for a Claude Code
	// session (docs/hooks.md, "The channel"): the same held connection,
	// recorded apart so that people see how the agent listens.
	ModeChannel = "channel"
	ModeWebhook = "webhook"
	ModeNone    = "none"
)

// StreamPath is where an agent holds its pact stream.
const StreamPath = "/pacts/stream"

// feedDelivery ends appendFeed's statement, after the CTE f holding the new
// feed row: it queues one webhook send for each agent seated in the pact
// (joined, not removed) whose webhook is on, never the author's own seat,
// and only while that agent stands (admitted, a member of the pact's
// project) and holds a live mandate covering pact.read there (SEC-015:
// delivery checks again, the whole chain, before it sends). At commit it
// wakes the delivery workers and the streams of the pact's seats. Folding
// both into the insert costs the writing tool no round trip.
func feedDelivery() string {
	return `, sends AS (
		INSERT INTO pact_sends (agent_id, feed_id)
		SELECT s.agent_id, f.id FROM f
		JOIN pacts p ON p.id = f.pact_id
		JOIN pact_seats s ON s.pact_id = f.pact_id AND s.agent_id IS NOT NULL
			AND s.joined_at IS NOT NULL AND s.removed_at IS NULL
			AND s.key IS DISTINCT FROM f.seat_key AND f.actor IS DISTINCT FROM 'agent:' || s.agent_id
		JOIN pact_delivery d ON d.agent_id = s.agent_id AND d.mode = 'webhook' AND d.disabled_at IS NULL
		WHERE ` + identity.StandsSQL("s.agent_id", "p.project_id") + `
		  AND ` + mandate.CoversSQL("s.agent_id", "p.project_id", ReadAction) + `)
	SELECT f.id, f.seq FROM f, (SELECT pg_notify(?, json_strip_nulls(json_build_object('kind', ?::text, 'pact_id', f.pact_id::text,
		'agent_id', CASE WHEN f.actor LIKE 'agent:%' THEN substr(f.actor, 7) END))::text) FROM f) AS woken`
}

// deliveryRow is an agent's delivery setting as stored; URL and Secret are
// sealed.
type deliveryRow struct {
	AgentID    string     `bun:"agent_id"`
	OrgID      string     `bun:"org_id"`
	Mode       string     `bun:"mode"`
	URL        *string    `bun:"url"`
	Secret     *string    `bun:"secret"`
	Failures   int        `bun:"failures"`
	DisabledAt *time.Time `bun:"disabled_at"`
	Stuck      *string    `bun:"stuck"`
}

// getDelivery reads agent's setting, nil when it never set one.
func getDelivery(ctx context.Context, tx bun.IDB, agent string) (*deliveryRow, error) {
	var r deliveryRow
	err := tx.NewRaw(`SELECT agent_id, org_id, mode, url, secret, failures, disabled_at, stuck
		FROM pact_delivery WHERE agent_id = ?`, agent).Scan(ctx, &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pacts: read the delivery setting of %s: %w", agent, err)
	}
	return &r, nil
}

// putDelivery stores agent's setting; it is on (woken) with no failures
// counted, and reports whether it was switched off before.
func putDelivery(ctx context.Context, tx bun.IDB, agent, org, mode string, url, secret *string) (woke bool, err error) {
	var was []bool
	err = tx.NewRaw(`WITH old AS (SELECT disabled_at IS NOT NULL AS off FROM pact_delivery WHERE agent_id = ? FOR UPDATE),
		up AS (INSERT INTO pact_delivery (agent_id, org_id, mode, url, secret) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (agent_id) DO UPDATE SET mode = EXCLUDED.mode, url = EXCLUDED.url, secret = EXCLUDED.secret,
				failures = 0, disabled_at = NULL, stuck = NULL, updated_at = now())
		SELECT off FROM old`, agent, agent, org, mode, url, secret).Scan(ctx, &was)
	if err != nil {
		return false, fmt.Errorf("pacts: store the delivery setting of %s: %w", agent, err)
	}
	return len(was) == 1 && was[0], nil
}

// wakeDelivery turns agent's switched-off webhook back on; false when it
// has no webhook.
func wakeDelivery(ctx context.Context, tx bun.IDB, agent string) (woke, found bool, err error) {
	var was []bool
	err = tx.NewRaw(`UPDATE pact_delivery n SET failures = 0, disabled_at = NULL, stuck = NULL, updated_at = now()
		FROM (SELECT agent_id, disabled_at IS NOT NULL AS off FROM pact_delivery WHERE agent_id = ? AND mode = 'webhook' FOR UPDATE) o
		WHERE n.agent_id = o.agent_id RETURNING o.off`, agent).Scan(ctx, &was)
	if err != nil {
		return false, false, fmt.Errorf("pacts: wake the webhook of %s: %w", agent, err)
	}
	return len(was) == 1 && was[0], len(was) == 1, nil
}

// stuckSentences maps each agent of org whose pact webhook is switched off
// to the sentence its person was told, for the people's Jobs list.
func stuckSentences(ctx context.Context, tx bun.IDB, org string) (map[string]string, error) {
	var rows []struct {
		AgentID string `bun:"agent_id"`
		Stuck   string `bun:"stuck"`
	}
	err := tx.NewRaw(`SELECT agent_id, stuck FROM pact_delivery WHERE org_id = ? AND disabled_at IS NOT NULL`, org).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the switched-off webhooks of %s: %w", org, err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.AgentID] = r.Stuck
	}
	return out, nil
}

// streamEvent is one pact_feed row as an agent's stream and webhook carry
// it. Its ID is the row's number in the organization's feed (seq,
// migration 029), never the board-wide id.
type streamEvent struct {
	ID       int64     `bun:"id" json:"id"`
	PactID   string    `bun:"pact_id" json:"pact_id"`
	PactName string    `bun:"pact_name" json:"pact"`
	Kind     string    `bun:"kind" json:"kind"`
	Ref      string    `bun:"ref" json:"ref,omitempty"`
	Seat     *string   `bun:"seat_key" json:"seat,omitempty"`
	Actor    string    `bun:"actor" json:"actor"`
	At       time.Time `bun:"at" json:"at"`
	Excerpt  string    `bun:"excerpt" json:"excerpt,omitempty"`
	ReadRest readRest  `bun:"-" json:"read_rest"`
}

// readRest is the exact call that reads the rest; the agent adds its
// mandate_id.
type readRest struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

func (e *streamEvent) fill() {
	e.ReadRest = readRest{Tool: ToolGet, Arguments: map[string]any{"pact_id": e.PactID, "since": e.ID - 1}}
}

// streamWindow is how far back Last-Event-ID replays.
const streamWindow = 7 * 24 * time.Hour

// agentEvents reads what others did after cursor (a number in the feed of
// the agent's organization, which holds every pact it sits in) in the
// pacts of projects where agent holds a joined, unremoved seat (only those
// in filter, when it is not empty), at most limit rows, oldest first and
// none older than the stream's window.
func agentEvents(ctx context.Context, tx bun.IDB, agent string, projects, filter []string, cursor int64, limit int) ([]streamEvent, error) {
	var out []streamEvent
	err := tx.NewRaw(`SELECT f.seq AS id, f.pact_id, p.name AS pact_name, f.kind, f.ref, f.seat_key, f.actor, f.at, f.excerpt
		FROM pact_seats s JOIN pact_feed f ON f.pact_id = s.pact_id JOIN pacts p ON p.id = s.pact_id
		WHERE s.agent_id = ? AND s.joined_at IS NOT NULL AND s.removed_at IS NULL AND p.project_id = ANY(?::text[])
		  AND (cardinality(?::text[]) = 0 OR s.pact_id::text = ANY(?::text[]))
		  AND f.seq > ? AND f.at > now() - make_interval(secs => ?)
		  AND f.seat_key IS DISTINCT FROM s.key AND f.actor <> 'agent:' || s.agent_id
		ORDER BY f.seq LIMIT ?`,
		agent, pgArray(projects), pgArray(filter), pgArray(filter), cursor, streamWindow.Seconds(), limit).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the stream of %s: %w", agent, err)
	}
	for i := range out {
		out[i].fill()
	}
	return out, nil
}

// heardEvent reads feed row id as the stream would send it to agent (its
// number in the organization's feed as its id), nil
// when agent no longer holds a joined, unremoved seat in its pact or the
// pact is not in one of projects.
func heardEvent(ctx context.Context, tx bun.IDB, agent string, projects []string, id int64) (*streamEvent, error) {
	var out []streamEvent
	err := tx.NewRaw(`SELECT f.seq AS id, f.pact_id, p.name AS pact_name, f.kind, f.ref, f.seat_key, f.actor, f.at, f.excerpt
		FROM pact_feed f JOIN pacts p ON p.id = f.pact_id
		JOIN pact_seats s ON s.pact_id = f.pact_id AND s.agent_id = ? AND s.joined_at IS NOT NULL AND s.removed_at IS NULL
		WHERE f.id = ? AND p.project_id = ANY(?::text[])`, agent, id, pgArray(projects)).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read feed row %d: %w", id, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	out[0].fill()
	return &out[0], nil
}

// seatedPacts lists the pacts where agent holds a joined, unremoved seat.
func seatedPacts(ctx context.Context, tx bun.IDB, agent string) ([]string, error) {
	out := []string{}
	err := tx.NewRaw(`SELECT pact_id::text FROM pact_seats WHERE agent_id = ? AND joined_at IS NOT NULL AND removed_at IS NULL`,
		agent).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the seats of %s: %w", agent, err)
	}
	return out, nil
}

// feedHead is the newest number in org's feed: a stream without
// Last-Event-ID starts there. An organization's numbers commit in their
// order (migration 029's per-organization lock), so no smaller one can
// commit later; other organizations' writes neither move it nor show in it.
func feedHead(ctx context.Context, tx bun.IDB, org string) (int64, error) {
	var seq int64
	if err := tx.NewRaw(`SELECT coalesce(max(seq), 0) FROM pact_feed WHERE org_id = ?`, org).Scan(ctx, &seq); err != nil {
		return 0, fmt.Errorf("pacts: read the feed's head in %s: %w", org, err)
	}
	return seq, nil
}

// pgArray is xs as a PostgreSQL text array, empty (never NULL) for none.
func pgArray(xs []string) any { return pgdialect.Array(append([]string{}, xs...)) }
