package main

// The pgbench references: the references the board's write tools are
// measured against (docs/benchmarks.md, "References"). pgbench commits the
// transaction every pact_post (testdata/post.pgbench) or winning pact_claim
// (testdata/claim.pgbench) must commit, prepared, from 16 clients, against
// the seed BenchmarkMCPCalls runs on, with the board running beside it as it
// does there (its LISTEN connection hears each post's pg_notify).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgcluster"
)

const (
	pgbenchClients = 16
	// claimCeiling is how many claims per second each client may make
	// before it runs out of seeded tasks (its next task read returns no
	// row, pgbench aborts the client and the benchmark fails): 16 × 400 is
	// about twenty times what pgbench reaches on the development machines.
	claimCeiling = 400
)

// pgbenchPath is the pgbench next to the server binaries the test cluster
// runs (core/pgcluster.FindBinaries), else the one on PATH.
func pgbenchPath() (string, error) {
	if dir, err := pgcluster.FindBinaries(); err == nil {
		if p := filepath.Join(dir, "pgbench"); fileExists(p) {
			return p, nil
		}
	}
	return exec.LookPath("pgbench")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// pgbenchSeconds is one pgbench run's length: -benchtime rounded up to
// whole seconds, at least 5 so a run is more than its ramp (5 with
// -benchtime Nx).
func pgbenchSeconds() int {
	d, err := time.ParseDuration(flag.Lookup("test.benchtime").Value.String())
	if err != nil {
		return 5
	}
	return max(5, int(math.Ceil(d.Seconds())))
}

// pgbenchResult is what one pgbench run printed.
type pgbenchResult struct {
	processed int64
	tps       float64
	latencyMS float64
}

var (
	tpsRe       = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)
	processedRe = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)
	latencyRe   = regexp.MustCompile(`(?m)^latency average = ([0-9.]+) ms`)
)

// parsePgbench reads pgbench's summary.
func parsePgbench(out string) (pgbenchResult, error) {
	var r pgbenchResult
	tps, processed, latency := tpsRe.FindStringSubmatch(out), processedRe.FindStringSubmatch(out), latencyRe.FindStringSubmatch(out)
	if tps == nil || processed == nil || latency == nil {
		return r, errors.New("pgbench printed no tps, transaction count or latency")
	}
	r.tps, _ = strconv.ParseFloat(tps[1], 64)
	r.processed, _ = strconv.ParseInt(processed[1], 10, 64)
	r.latencyMS, _ = strconv.ParseFloat(latency[1], 64)
	return r, nil
}

// pgbenchScript is one reference: a script under testdata and what its
// run needs.
type pgbenchScript struct {
	file string
	// seed, if set, prepares the run.
	seed func(b *testing.B, bb *benchBoard, perClient int)
	// tidy, if set, is run every second during a run.
	tidy string
	// done counts what the transactions left behind, one row each: a
	// script that stopped doing its work would otherwise look fast.
	done string
}

// BenchmarkPgbenchPost is the pact_post reference: transactions per second
// of testdata/post.pgbench. Its one sub-benchmark is named like the
// board's figure it is the reference of (BenchmarkMCPCalls/pact_post/clients=16).
func BenchmarkPgbenchPost(b *testing.B) {
	b.Run(fmt.Sprintf("clients=%d", pgbenchClients), func(b *testing.B) {
		benchPgbench(b, pgbenchScript{file: "post.pgbench", done: `SELECT count(*) FROM entries WHERE action = 'pact_post'`})
	})
}

// BenchmarkPgbenchPostNoLock is the database's own commit rate for the
// pact_post transaction without the chain head's lock:
// testdata/post-nolock.pgbench, the shape the board commits since the log
// was sequenced (docs/log-sequencing.md).
func BenchmarkPgbenchPostNoLock(b *testing.B) {
	b.Run(fmt.Sprintf("clients=%d", pgbenchClients), func(b *testing.B) {
		benchPgbench(b, pgbenchScript{file: "post-nolock.pgbench", done: `SELECT count(*) FROM entries WHERE action = 'pact_post'`})
	})
}

// BenchmarkPgbenchClaim is the pact_claim reference: transactions per
// second of testdata/claim.pgbench, each claiming a task of its own, as in
// BenchmarkMCPCalls. Every claim scans the project's claimed tasks for stale
// ones, so claimed tasks are closed every second, as BenchmarkMCPCalls
// closes them after each of its runs (of a few hundred claims): else the
// scan would grow through the run and the reference would sink.
func BenchmarkPgbenchClaim(b *testing.B) {
	b.Run(fmt.Sprintf("clients=%d", pgbenchClients), func(b *testing.B) {
		benchPgbench(b, pgbenchScript{file: "claim.pgbench", seed: seedClaimTasks,
			tidy: `UPDATE tasks SET status = 'completed' WHERE status = 'working'`,
			done: `SELECT count(*) FROM tasks WHERE status <> 'submitted'`})
	})
}

// benchPgbench runs s once against a fresh board and reports its
// transactions per second and mean latency. b.N is not a count of
// anything here: each call of the benchmark is one pgbench run of
// pgbenchSeconds, which with a -benchtime duration is already long enough
// for the framework to stop at b.N = 1 (with -benchtime Nx it calls twice).
func benchPgbench(b *testing.B, s pgbenchScript) {
	bin, err := pgbenchPath()
	if err != nil {
		b.Skipf("pgbench is not installed next to postgres or on PATH (%v); the write references need it", err)
	}
	ids := make([]string, pgbenchClients)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench-%02d", i)
	}
	bb := startBenchBoard(b, "code", ids...)
	secs := pgbenchSeconds()
	if s.seed != nil {
		s.seed(b, bb, secs*claimCeiling)
	}
	b.ResetTimer()
	stop := bb.every(b, time.Second, s.tidy)
	r, err := runPgbench(bin, bb.dsn, s.file, secs)
	stop()
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	var rows int64
	if err := bb.d.NewRaw(s.done).Scan(context.Background(), &rows); err != nil {
		b.Fatal(err)
	}
	if rows != r.processed {
		b.Fatalf("pgbench reports %d transactions, the database holds %d of their rows", r.processed, rows)
	}
	b.ReportMetric(0, "ns/op") // the run's length, set by -benchtime: it says nothing
	b.ReportMetric(r.tps, "tx/s")
	b.ReportMetric(r.latencyMS, "latency-avg-ms")
}

// runPgbench runs script for secs seconds from pgbenchClients clients.
func runPgbench(bin, dsn, script string, secs int) (pgbenchResult, error) {
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(pgbenchClients), "-j", "2", "-T", strconv.Itoa(secs),
		"-D", "loaded=0", "-f", filepath.Join("testdata", script), dsn}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return pgbenchResult{}, fmt.Errorf("pgbench: %w\n%s", err, out)
	}
	r, err := parsePgbench(string(out))
	if err != nil {
		return r, fmt.Errorf("%w\n%s", err, out)
	}
	return r, nil
}

// every runs query every period until stop is called ("" runs nothing).
func (bb *benchBoard) every(b *testing.B, period time.Duration, query string) (stop func()) {
	if query == "" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := bb.d.ExecContext(ctx, query); err != nil && ctx.Err() == nil {
					b.Error(err)
					return
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// seedClaimTasks inserts perClient open tasks for each pgbench client,
// numbered as claim.pgbench claims them, posted by agent bench-00 as
// BenchmarkMCPCalls seeds its tasks, then analyzes them as autovacuum
// would have by the time so many were posted.
func seedClaimTasks(b *testing.B, bb *benchBoard, perClient int) {
	if perClient >= 1000000 {
		b.Fatalf("%d tasks per client overflow claim.pgbench's numbering", perClient)
	}
	ctx := context.Background()
	_, err := bb.d.ExecContext(ctx, `INSERT INTO tasks (id, project_id, title, action, created_by, mandate_id, status)
		SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(c * 1000000 + i), 12, '0'))::uuid,
			'web', 'bench task ' || i, 'task.work', ?, ?::uuid, 'submitted'
		FROM generate_series(0, ? - 1) c, generate_series(1, ?) i`,
		bb.agents[0].id, bb.agents[0].root, pgbenchClients, perClient)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := bb.d.ExecContext(ctx, `ANALYZE tasks`); err != nil {
		b.Fatal(err)
	}
}

// The summary pgbench 15 prints; a run that printed none is an error, not
// a figure.
func TestParsePgbench(t *testing.T) {
	out := `pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: testdata/post.pgbench
scaling factor: 1
query mode: prepared
number of clients: 16
number of threads: 2
maximum number of tries: 1
duration: 8 s
number of transactions actually processed: 3226
number of failed transactions: 0 (0.000%)
latency average = 39.451 ms
initial connection time = 21.315 ms
tps = 402.542678 (without initial connection time)
`
	r, err := parsePgbench(out)
	require.NoError(t, err)
	require.Equal(t, pgbenchResult{processed: 3226, tps: 402.542678, latencyMS: 39.451}, r)
	_, err = parsePgbench("pgbench: error: connection to server failed\n")
	require.Error(t, err)
}
