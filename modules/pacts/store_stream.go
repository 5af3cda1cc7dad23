package pacts

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The reads of the pact stream and of a webhook send (stream.go,
// webhook.go): what an agent hears of the feed.

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
