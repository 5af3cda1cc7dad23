package pacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
)

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

// sealedDelivery is an agent's webhook as stored: its address and secret,
// sealed (core/seal).
type sealedDelivery struct {
	AgentID string `bun:"agent_id"`
	URL     string `bun:"url"`
	Secret  string `bun:"secret"`
}

// sealedDeliveries reads every webhook address and secret, by agent.
func sealedDeliveries(ctx context.Context, d bun.IDB) ([]sealedDelivery, error) {
	var rows []sealedDelivery
	if err := d.NewRaw(`SELECT agent_id, url, secret FROM pact_delivery WHERE url IS NOT NULL ORDER BY agent_id`).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("pacts: read the webhooks to reseal: %w", err)
	}
	return rows, nil
}

// resealDelivery replaces old's address and secret with url and secret,
// unless another process changed them meanwhile; it reports whether it did.
func resealDelivery(ctx context.Context, d bun.IDB, old sealedDelivery, url, secret string) (bool, error) {
	res, err := d.ExecContext(ctx, `UPDATE pact_delivery SET url = ?, secret = ? WHERE agent_id = ? AND url = ? AND secret = ?`,
		url, secret, old.AgentID, old.URL, old.Secret)
	if err != nil {
		return false, fmt.Errorf("pacts: reseal the webhook of %s: %w", old.AgentID, err)
	}
	k, _ := res.RowsAffected()
	return k == 1, nil
}

// resetFailures forgets agent's failed webhook sends in a row.
func resetFailures(ctx context.Context, tx bun.IDB, agent string) error {
	_, err := tx.ExecContext(ctx, `UPDATE pact_delivery SET failures = 0 WHERE agent_id = ? AND failures > 0`, agent)
	return err
}

// countFailure counts one more failed send of agent's webhook while it is
// on, and answers the failures in a row (found false when it is off or no
// longer the agent's mode).
func countFailure(ctx context.Context, tx bun.IDB, agent string) (failures int, found bool, err error) {
	var n []int
	if err := tx.NewRaw(`UPDATE pact_delivery SET failures = failures + 1 WHERE agent_id = ? AND disabled_at IS NULL
		AND mode = 'webhook' RETURNING failures`, agent).Scan(ctx, &n); err != nil {
		return 0, false, fmt.Errorf("pacts: count a failed webhook send of %s: %w", agent, err)
	}
	if len(n) == 0 {
		return 0, false, nil
	}
	return n[0], true, nil
}

// switchOffDelivery turns agent's webhook off, keeping the sentence its
// person is told.
func switchOffDelivery(ctx context.Context, tx bun.IDB, agent, sentence string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE pact_delivery SET disabled_at = now(), stuck = ? WHERE agent_id = ?`, sentence, agent); err != nil {
		return fmt.Errorf("pacts: switch off the webhook of %s: %w", agent, err)
	}
	return nil
}
