package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkEventsHolders is what n held pact_events calls cost the board
// process (docs/benchmarks.md, "Held pact_events calls"): heap, goroutine
// stacks, resident memory and goroutines per holder, the board's resident
// memory in total, and database backends while they are held. Each holder
// is its own agent. The n HTTP clients run in a helper process (this test
// binary again, TestHolderProcess), so the board's process holds only the
// server side. Round 1 measures, then the clients cancel (disconnect) and
// the board must see every call end; round 2 holds them again and posts
// offerRounds tasks one at a time: each must wake one holder (an offer),
// and it reports the latency from the post to that holder's answer and how
// many holders each task woke.
//
// holders=10000 needs 10,000 file descriptors in each process, as many
// loopback ports, and about 25 minutes on two cores (run it with -timeout
// 60m); it is skipped, saying why, where the limits are too low.
func BenchmarkEventsHolders(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("holders=%d", n), func(b *testing.B) { benchHolders(b, n) })
	}
}

// offerRounds is how many tasks round 2 posts, one at a time: enough that
// the 99th percentile is not simply the slowest.
const offerRounds = 300

func benchHolders(b *testing.B, n int) {
	if err := holderLimits(n); err != nil {
		b.Skip(err)
	}
	ids := []string{"poster"}
	for i := range n {
		ids = append(ids, fmt.Sprintf("holder-%05d", i))
	}
	startHolderProfiles()
	bb := startBenchBoard(b, "runner", ids...)
	poster := bb.session(b, bb.agents[0])
	holders := bb.agents[1:]
	ctx := context.Background()
	bb.checkMaxConnections(b)

	var file bytes.Buffer
	for _, h := range holders {
		fmt.Fprintf(&file, "%s %s %s\n", h.id, h.token, h.root)
	}
	path := b.TempDir() + "/holders"
	if err := os.WriteFile(path, file.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestHolderProcess$", "-test.count=1", "-test.timeout=0")
	// The helper is no part of the board: a memory limit set for the
	// board's process (GOMEMLIMIT) is not the helper's.
	helper.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") }),
		holderEnv+"="+path, holderURL+"="+bb.base)
	helper.Stderr = os.Stderr
	toHelper, err := helper.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	fromHelper, err := helper.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = toHelper.Close(); _ = helper.Wait() }()
	lines := bufio.NewScanner(fromHelper)
	command := func(cmd string) holderSummary {
		b.Helper()
		if _, err := fmt.Fprintln(toHelper, cmd); err != nil {
			b.Fatal(err)
		}
		for lines.Scan() {
			if rest, ok := strings.CutPrefix(lines.Text(), "holders: "); ok {
				var s holderSummary
				if err := json.Unmarshal([]byte(rest), &s); err != nil {
					b.Fatal(err)
				}
				return s
			}
		}
		b.Fatalf("the helper process ended: %v", lines.Err())
		return holderSummary{}
	}

	// The board's own state: who is listening, and its backends (the
	// benchmark's handle has exactly one connection, not counted).
	listening := func() (held, backends, busy int) {
		b.Helper()
		err := bb.d.NewRaw(`SELECT (SELECT count(*) FROM agent_presence WHERE listening_until > now()),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
				AND state <> 'idle')`).Scan(ctx, &held, &backends, &busy)
		if err != nil {
			b.Fatal(err)
		}
		return held, backends, busy
	}
	// Setting a call up takes a dozen statements on a pool of four
	// connections: a few milliseconds each, so 10,000 take about a minute.
	patience := max(40*time.Second, time.Duration(n)*10*time.Millisecond)
	if os.Getenv(profileEnv) != "" {
		patience *= 2 // profiling slows everything
	}
	// hold opens the n calls and returns once the board holds them all
	// and is idle (twice in a row), with the most backends seen meanwhile.
	// A call that times out (50 s) before the others are held is made again
	// by its client, as a Runner does. A board that cannot set the calls up
	// faster than they time out (n/50 per second: a loaded machine) never
	// holds them all at once; past the first time-outs, once the number
	// held has not risen for 10 s, hold returns how many are held then, so
	// that the figures per held call are still measured.
	hold := func() (setup time.Duration, maxBackends, held int) {
		b.Helper()
		start := time.Now()
		command("hold")
		quiet, logged, best, bestAt := 0, time.Now(), 0, time.Now()
		for quiet < 2 {
			if time.Since(start) > patience+time.Minute {
				s := command("cancel")
				b.Fatalf("only %d of %d calls held after %s; the clients saw %+v", held, n, time.Since(start), s)
			}
			time.Sleep(50 * time.Millisecond)
			var backends, busy int
			held, backends, busy = listening()
			if time.Since(logged) > 10*time.Second {
				b.Logf("%s: %d of %d calls held", time.Since(start).Round(time.Second), held, n)
				logged = time.Now()
			}
			maxBackends = max(maxBackends, backends)
			if held > best {
				best, bestAt = held, time.Now()
			}
			switch {
			case held == n && busy == 0:
				if quiet == 0 {
					setup = time.Since(start)
				}
				quiet++
			case time.Since(start) > 55*time.Second && time.Since(bestAt) > 10*time.Second:
				b.Logf("the board sets calls up slower than they time out: %d of %d held at most, measuring at %d", best, n, held)
				return time.Since(start), maxBackends, held
			default:
				quiet = 0
			}
		}
		return setup, maxBackends, held
	}

	// Warm up: the MCP server is built, the pool and the listener connect.
	if _, err := callTool(ctx, poster, "pact_events", map[string]any{"mandate_id": bb.agents[0].root, "seconds": 0}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		// The set-up's garbage (registering n agents) goes back to the
		// system first, so the holders neither reuse its pages unseen nor
		// count it as theirs.
		debug.FreeOSMemory()
		before := processMemory()
		resetPeakRSS()
		stopProfile := profileSetup(b, n)
		setup, maxBackends, held := hold()
		stopProfile()
		after := processMemory()
		writeHolderProfiles(b, n)
		// Per holder is per call open: when fewer than n are held (held),
		// the others are being set up again after a time-out.
		b.ReportMetric(float64(held), "held")
		b.ReportMetric(float64(after.heap-before.heap)/float64(n), "heap-B/holder")
		b.ReportMetric(float64(after.stack-before.stack)/float64(n), "stack-B/holder")
		b.ReportMetric(float64(after.rss-before.rss)/float64(n), "rss-B/holder")
		b.ReportMetric(float64(after.rss)/1e6, "rss-MB")
		b.ReportMetric(float64(after.peak)/1e6, "rss-peak-MB")
		b.ReportMetric(float64(after.goroutines-before.goroutines)/float64(n), "goroutines/holder")
		b.ReportMetric(float64(maxBackends), "db-backends")
		b.ReportMetric(inMS(setup), "hold-all-ms")

		// Release by disconnecting: every call must end on the board.
		released := time.Now()
		s := command("cancel")
		if s.Canceled != n {
			b.Fatalf("the helper saw %d of %d calls canceled: %+v", s.Canceled, n, s)
		}
		for {
			held, _, busy := listening()
			if held == 0 && busy == 0 && runtime.NumGoroutine() <= before.goroutines+10 {
				break
			}
			if time.Since(released) > patience/2 {
				b.Fatalf("%s after the clients left: %d still listening, %d goroutines (%d before)",
					patience/2, held, runtime.NumGoroutine(), before.goroutines)
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.ReportMetric(inMS(time.Since(released)), "release-ms")

		// Hold again, then post tasks one at a time: each is offered to one
		// holder (docs/events.md, "Offers"), whose call returns with it; no
		// other call returns.
		hold()
		// From commit: the post's log entry is stamped by the board as it
		// appends, in its transaction just before COMMIT, on this clock, so
		// the holder's answer measured from it is commit-to-answer plus the
		// commit itself. From the post's start: an upper bound.
		var fromCommit, fromPost []time.Duration
		woken := 0
		for i := range offerRounds {
			before := command("returned").Returned
			posted := time.Now()
			if _, err := callTool(ctx, poster, "pact_post", map[string]any{"mandate_id": bb.agents[0].root, "project_id": "web",
				"title": fmt.Sprintf("Work for one %d", i)}); err != nil {
				b.Fatal(err)
			}
			var s holderSummary
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				if s = command("returned"); s.Returned > before {
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("task %d: no holder returned within 10s", i)
				}
			}
			at := time.Unix(0, s.Last)
			var stamped time.Time
			if err := bb.d.NewRaw(`SELECT at FROM entries WHERE action = 'pact_post' AND agent_id = ? ORDER BY id DESC LIMIT 1`,
				bb.agents[0].id).Scan(ctx, &stamped); err != nil {
				b.Fatal(err)
			}
			fromPost = append(fromPost, at.Sub(posted))
			fromCommit = append(fromCommit, at.Sub(stamped))
			time.Sleep(50 * time.Millisecond) // another holder woken would have returned by now
			woken += command("returned").Returned - before
			// Claimed by nobody: cancel it before its lease runs out, so it
			// is not offered again.
			if _, err := bb.d.ExecContext(ctx, `UPDATE tasks SET status = 'canceled' WHERE status = 'submitted'`); err != nil {
				b.Fatal(err)
			}
		}
		for _, l := range [][]time.Duration{fromCommit, fromPost} {
			slices.Sort(l)
		}
		b.ReportMetric(inMS(percentile(fromCommit, 50)), "offer-p50-ms")
		b.ReportMetric(inMS(percentile(fromCommit, 99)), "offer-p99-ms")
		b.ReportMetric(inMS(percentile(fromPost, 99)), "offer-p99-from-post-ms")
		b.ReportMetric(float64(woken)/offerRounds, "woken/task")
		command("cancel")
		// The next round starts from an empty board again.
		if _, err := bb.d.ExecContext(ctx, `UPDATE tasks SET status = 'canceled' WHERE status = 'submitted'`); err != nil {
			b.Fatal(err)
		}
	}
}

// percentile is the p-th percentile of the sorted l (nearest rank).
func percentile(l []time.Duration, p int) time.Duration {
	return l[max(0, (len(l)*p+99)/100-1)]
}

// checkMaxConnections fails when PostgreSQL could not even serve the board's
// pool, its two LISTEN connections and the benchmark's own: held calls hold
// no connection, so n does not enter into it.
func (bb *benchBoard) checkMaxConnections(b *testing.B) {
	var maxConns int
	if err := bb.d.NewRaw(`SELECT current_setting('max_connections')::int`).Scan(context.Background(), &maxConns); err != nil {
		b.Fatal(err)
	}
	if need := max(4, runtime.NumCPU()) + 2 + 1; maxConns < need {
		b.Fatalf("max_connections is %d; the board needs %d", maxConns, need)
	}
}
