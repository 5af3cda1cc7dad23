package ledger_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/pgtest"
)

// placed returns chain's places in order, as entry ids, and how many
// entries are still queued.
func placed(t *testing.T, d *db.DB, chain string) (ids []int64, queued int) {
	t.Helper()
	ctx := context.Background()
	var seqs []int64
	require.NoError(t, d.NewRaw(`SELECT entry_id, seq FROM entry_places WHERE chain_key = ? ORDER BY seq`, chain).
		Scan(ctx, &ids, &seqs))
	for i, s := range seqs {
		require.EqualValues(t, i+1, s, "places are numbered from 1 without a gap")
	}
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM entry_queue`).Scan(ctx, &queued))
	return ids, queued
}

// LOG-013: an append takes no lock another append waits for. A transaction
// that appended to a chain and has not committed does not hold back a
// second one on the same chain, which commits; the first one's entry is
// placed once it commits, after the second.
func TestAnOpenAppendDoesNotHoldBackAnother(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	open, err := d.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer open.Rollback() //nolint:errcheck // committed below; a failed test leaves it open
	first, err := l.Append(ctx, open, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "first"})
	require.NoError(t, err)

	quick, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var second *ledger.Appended
	require.NoError(t, d.InTx(quick, func(ctx context.Context, tx bun.Tx) (err error) {
		second, err = l.Append(ctx, tx, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "second"})
		return err
	}), "the second append waited for the first's transaction")
	require.Equal(t, 1, integrate(t, d, l), "only the committed entry is placed")

	require.NoError(t, open.Commit())
	require.Equal(t, 1, integrate(t, d, l))
	ids, queued := placed(t, d, "web")
	require.Equal(t, []int64{second.ID, first.ID}, ids, "the order is the integrator's, not the ids'")
	require.Zero(t, queued)
	requireIntact(t, d, l, "web")
}

// LOG-013: appends from eight writers on two chains while two integrators
// run, each skipping a chain the other holds, leave every entry of each
// chain placed once, in places numbered without a gap, and nothing queued;
// the lag of each entry placed is recorded.
func TestIntegratorsPlaceEveryCommittedEntryOnce(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	m := metrics.New()
	l := ledger.New(&ledger.Options{Metrics: m})
	const writers, each = 8, 25
	chains := []string{"web", "rocket"}
	var integrators sync.WaitGroup
	stop := make(chan struct{})
	var mu sync.Mutex
	total := 0
	for range 2 {
		integrators.Go(func() {
			for {
				n, err := l.Integrate(ctx, d, false)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				total += n
				mu.Unlock()
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	appendConcurrently(t, d, l, writers, each, func(w int) string { return chains[w%2] })
	close(stop)
	integrators.Wait()
	total += integrate(t, d, l)
	require.Equal(t, writers*each, total, "each entry placed once")

	for _, c := range chains {
		ids, queued := placed(t, d, c)
		require.Len(t, ids, writers*each/2, c)
		require.Zero(t, queued)
		var size int64
		require.NoError(t, d.NewRaw(`SELECT size FROM entry_chain_heads WHERE chain_key = ?`, c).Scan(ctx, &size))
		require.EqualValues(t, writers*each/2, size, c)
		requireIntact(t, d, l, c)
	}
	var entries int
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM entries`).Scan(ctx, &entries))
	require.Equal(t, writers*each, entries)
	require.Equal(t, uint64(writers*each), histogramCount(t, m, "pact_log_integration_lag_seconds"))

	// One pass places every chain's entries, not the first chain's alone.
	for _, c := range chains {
		appendOne(t, d, l, ledger.Entry{ProjectID: c, Actor: "human:ana", Action: "x"})
	}
	require.Equal(t, len(chains), integrate(t, d, l))
}

// requireIntact verifies chain and fails t unless it is intact.
func requireIntact(t *testing.T, d *db.DB, l *ledger.Log, chain string) {
	t.Helper()
	v, err := l.VerifyChain(context.Background(), d, chain, nil)
	require.NoError(t, err)
	require.True(t, v.OK, v.Reason)
}

func histogramCount(t *testing.T, m *metrics.Metrics, name string) uint64 {
	t.Helper()
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// LOG-013: one integrator works on a chain at a time. While one holds a
// chain mid-batch, another that skips places nothing of it, and one that
// waits places nothing until the first ends. The first dies before its
// COMMIT (its backend terminated, as kill -9 of its board would): nothing
// of its batch stays, and the waiting one takes over and places every
// entry.
func TestAnIntegratorThatDiesMidBatchLeavesItsEntriesToTheNext(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	l := ledger.New(nil)
	for range 5 {
		appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"})
	}
	conn, err := d.Pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	var pid int
	require.NoError(t, conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid))
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	var n int
	require.NoError(t, tx.QueryRow(ctx, `SELECT count(*) FROM ledger_integrate('web', 500, true)`).Scan(&n))
	require.Equal(t, 5, n, "the first integrator placed the batch, not yet committed")

	skipped, err := l.Integrate(ctx, d, false)
	require.NoError(t, err)
	require.Zero(t, skipped, "a chain another integrator holds is skipped")

	waited := make(chan int, 1)
	go func() {
		n, err := l.Integrate(ctx, d, true)
		if err != nil {
			t.Error(err)
		}
		waited <- n
	}()
	select {
	case n := <-waited:
		t.Fatalf("a waiting integrator placed %d entries while the first held the chain", n)
	case <-time.After(300 * time.Millisecond):
	}
	var killed bool
	require.NoError(t, d.NewRaw(`SELECT pg_terminate_backend(?)`, pid).Scan(ctx, &killed))
	require.True(t, killed)
	require.Equal(t, 5, <-waited, "the next integrator placed every entry of the dead one's batch")

	ids, queued := placed(t, d, "web")
	require.Len(t, ids, 5)
	require.Zero(t, queued)
	requireIntact(t, d, l, "web")
}

// A board's integrator places its own entries as soon as they commit
// (Log.Committed wakes it; its tick is an hour here), and those it was not
// told of (an Append in a caller's transaction) at its next tick.
func TestTheIntegratorRunsOnCommitAndOnItsTick(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	for _, c := range []struct {
		name  string
		every time.Duration
		write func(l *ledger.Log) error
	}{
		{"on commit", time.Hour, func(l *ledger.Log) error {
			return l.Record(ctx, d, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"},
				func(context.Context, bun.Tx, *ledger.Entry) error { return nil })
		}},
		{"on its tick", 50 * time.Millisecond, func(l *ledger.Log) error {
			return d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				_, err := l.Append(ctx, tx, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "x"})
				return err
			})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := ledger.New(nil)
			run, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			i := &ledger.Integrator{Log: l, DB: d, Every: c.every, Logger: hclog.NewNullLogger()}
			go func() { defer close(done); _ = i.Run(run) }()
			defer func() { stop(); <-done }()
			time.Sleep(50 * time.Millisecond) // its first pass has run
			require.NoError(t, c.write(l))
			require.Eventually(t, func() bool {
				_, queued := placed(t, d, "web")
				return queued == 0
			}, 5*time.Second, 10*time.Millisecond)
		})
	}
}
