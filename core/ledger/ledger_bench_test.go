package ledger_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	dto "github.com/prometheus/client_model/go"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/pgtest"
)

func benchAppend(b *testing.B, tx bun.IDB, l *ledger.Log, project string, i int) {
	_, err := l.Append(context.Background(), tx, ledger.Entry{ProjectID: project, Actor: "agent:bench", Action: "pact_report",
		Payload: map[string]any{"status": "working", "n": i, "note": "heartbeat from the bench"}})
	if err != nil {
		b.Fatal(err)
	}
}

// One transaction per append, all on one chain, one writer at a time.
func BenchmarkAppendOneChain(b *testing.B) {
	ctx := context.Background()
	d := pgtest.New(b)
	seedProjects(b, d, 1)
	l := ledger.New(nil)
	b.ResetTimer()
	for i := range b.N {
		if err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { benchAppend(b, tx, l, "p0", i); return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// Eight goroutines, each appending to its own project's chain: chains do
// not queue behind each other.
func BenchmarkAppendEightChainsParallel(b *testing.B) {
	var next atomic.Int64
	benchParallelAppends(b, 8, func() string { return fmt.Sprintf("p%d", next.Add(1)%8) })
}

// Eight goroutines appending to one chain: with the sequenced log
// (docs/log-sequencing.md) they no longer queue on its head; the entries
// wait in the queue, placed by BenchmarkIntegrate's work.
func BenchmarkAppendOneChainParallel(b *testing.B) {
	benchParallelAppends(b, 1, func() string { return "p0" })
}

// benchParallelAppends runs eight goroutines appending, one transaction
// per entry, each to the chain of the project chain() gives it, among
// projects p0 … p<projects-1>.
func benchParallelAppends(b *testing.B, projects int, chain func() string) {
	ctx := context.Background()
	d := pgtest.New(b)
	seedProjects(b, d, projects)
	l := ledger.New(nil)
	b.SetParallelism((8 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		project := chain()
		i := 0
		for pb.Next() {
			i++
			if err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { benchAppend(b, tx, l, project, i); return nil }); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// Integration throughput: entries placed per second, b.N queued entries of
// one chain placed in batches of 500 by one integrator.
func BenchmarkIntegrate(b *testing.B) {
	ctx := context.Background()
	d := pgtest.New(b)
	seedProjects(b, d, 1)
	l := ledger.New(nil)
	if err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for i := range b.N {
			benchAppend(b, tx, l, "p0", i)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n, err := l.Integrate(ctx, d, true)
	if err != nil || n != b.N {
		b.Fatal(n, err)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "entries/s")
}

// Verification throughput: entries checked per second on a 5000-entry chain.
func BenchmarkVerifyChain(b *testing.B) {
	ctx := context.Background()
	d := pgtest.New(b)
	seedProjects(b, d, 1)
	l := ledger.New(nil)
	const n = 5000
	if err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for i := range n {
			benchAppend(b, tx, l, "p0", i)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if _, err := l.Integrate(ctx, d, true); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		v, err := l.VerifyChain(ctx, d, "p0", nil)
		if err != nil || !v.OK {
			b.Fatal(err, v.Reason)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "entries/s")
}

func seedProjects(b *testing.B, d *db.DB, n int) {
	b.Helper()
	q := `INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner');`
	for i := range n {
		q += fmt.Sprintf(`INSERT INTO projects (id, org_id, name, created_by) VALUES ('p%d', 'default', 'P', 'ana');`, i)
	}
	if _, err := d.ExecContext(context.Background(), q); err != nil {
		b.Fatal(err)
	}
}

// Integration lag under load: eight writers record entries on one chain
// (ledger.Record, which wakes the integrator after each commit) while a
// board's integrator runs; reported are the p50 and p99 of how long the
// entries waited for their places, from the lag histogram
// (pact_log_integration_lag_seconds), interpolated within its buckets as
// Prometheus' histogram_quantile does.
func BenchmarkIntegrationLag(b *testing.B) {
	ctx := context.Background()
	d := pgtest.New(b)
	seedProjects(b, d, 1)
	m := metrics.New()
	l := ledger.New(&ledger.Options{Metrics: m})
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	i := &ledger.Integrator{Log: l, DB: d, Every: 250 * time.Millisecond, Logger: hclog.NewNullLogger()}
	go func() { defer close(done); _ = i.Run(run) }()
	b.SetParallelism((8 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		n := 0
		for pb.Next() {
			n++
			err := l.Record(ctx, d, ledger.Entry{ProjectID: "p0", Actor: "agent:bench", Action: "pact_report",
				Payload: map[string]any{"n": n}}, func(context.Context, bun.Tx, *ledger.Entry) error { return nil })
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	for {
		q, err := ledger.Queued(ctx, d)
		if err != nil {
			b.Fatal(err)
		}
		if q.Pending == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	<-done
	h := lagHistogram(b, m)
	b.ReportMetric(quantile(h, 0.5)*1000, "p50-lag-ms")
	b.ReportMetric(quantile(h, 0.99)*1000, "p99-lag-ms")
}

func lagHistogram(b *testing.B, m *metrics.Metrics) *dto.Histogram {
	families, err := m.Registry().Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "pact_log_integration_lag_seconds" {
			return f.GetMetric()[0].GetHistogram()
		}
	}
	b.Fatal("no lag histogram")
	return nil
}

// quantile is histogram_quantile over h: linear within the bucket that
// holds the q-th observation.
func quantile(h *dto.Histogram, q float64) float64 {
	rank := q * float64(h.GetSampleCount())
	lower, below := 0.0, 0.0
	for _, bk := range h.GetBucket() {
		upper, count := bk.GetUpperBound(), float64(bk.GetCumulativeCount())
		if count >= rank {
			if count == below {
				return upper
			}
			return lower + (upper-lower)*(rank-below)/(count-below)
		}
		lower, below = upper, count
	}
	return lower
}
