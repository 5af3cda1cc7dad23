package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/metrics"
)

// integrateBatch is how many of one chain's entries one transaction of the
// integrator places (docs/log-sequencing.md).
const integrateBatch = 500

// Committed tells the integrator that an entry committed, so that it runs
// now rather than at its next tick. It never blocks: wakes that arrive
// while one is pending are one wake.
func (l *Log) Committed() {
	select {
	case l.committed <- struct{}{}:
	default:
	}
}

// Integrate gives every committed entry still queued its place in its chain
// and its hash (the SQL function ledger_integrate, a transaction per chain
// and batch), and returns how many it placed. A chain another integrator
// is working on is skipped, or with wait, waited for: a reader that must
// see every committed entry (a verification, an export, a checkpoint)
// integrates with wait first.
func (l *Log) Integrate(ctx context.Context, d *db.DB, wait bool) (int, error) {
	return integrate(ctx, d, wait, l.metrics)
}

// integrate is Integrate, recording lags into m (nil: nowhere).
func integrate(ctx context.Context, d *db.DB, wait bool, m *metrics.Metrics) (int, error) {
	placed := 0
	for {
		rows, err := d.Pool.Query(ctx, `SELECT DISTINCT chain_key FROM entry_queue`)
		if err != nil {
			return placed, fmt.Errorf("ledger: chains to integrate: %w", err)
		}
		chains, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return placed, fmt.Errorf("ledger: chains to integrate: %w", err)
		}
		more := false
		for _, c := range chains {
			n, err := integrateChain(ctx, d, c, wait, m)
			placed += n
			if err != nil {
				return placed, err
			}
			more = more || n == integrateBatch
		}
		if !more {
			return placed, nil
		}
	}
}

// integrateChain runs one batch of chain c and records how long each entry
// it placed waited in the queue.
func integrateChain(ctx context.Context, d *db.DB, c string, wait bool, m *metrics.Metrics) (int, error) {
	rows, err := d.Pool.Query(ctx, `SELECT r_lag FROM ledger_integrate($1, $2, $3)`, c, integrateBatch, wait)
	if err != nil {
		return 0, fmt.Errorf("ledger: integrate chain %s: %w", c, err)
	}
	lags, err := pgx.CollectRows(rows, pgx.RowTo[float64])
	if err != nil {
		return 0, fmt.Errorf("ledger: integrate chain %s: %w", c, err)
	}
	for _, s := range lags {
		m.LogIntegrated(time.Duration(s * float64(time.Second)))
	}
	return len(lags), nil
}

// Integrator runs Integrate on a board: at once when one of its own entries
// commits (Log.Committed), and every Every besides, for the entries of
// transactions the log does not commit itself (Append in a caller's
// transaction) and for those another board committed and could not
// integrate (it was killed between the two).
type Integrator struct {
	Log    *Log
	DB     *db.DB
	Every  time.Duration
	Logger hclog.Logger
}

// Run integrates until ctx ends. A failed pass is logged and tried again
// at the next wake: the entries stay queued, nothing is lost.
func (i *Integrator) Run(ctx context.Context) error {
	tick := time.NewTicker(i.Every)
	defer tick.Stop()
	for {
		if _, err := i.Log.Integrate(ctx, i.DB, false); err != nil && ctx.Err() == nil {
			i.Logger.Warn("log integration: will try again", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-i.Log.committed:
		case <-tick.C:
		}
	}
}

// Queued returns how many committed entries wait for their places and how
// long the oldest has waited (for metrics.LogQueue).
func Queued(ctx context.Context, d *db.DB) (metrics.QueueState, error) {
	var s metrics.QueueState
	var secs float64
	err := d.FetchInto(ctx, d, `SELECT count(*), coalesce(extract(epoch FROM clock_timestamp() - min(queued_at)), 0)::float8
		FROM entry_queue`, nil, &s.Pending, &secs)
	if err != nil {
		return s, fmt.Errorf("ledger: queued entries: %w", err)
	}
	s.Oldest = time.Duration(secs * float64(time.Second))
	return s, nil
}
