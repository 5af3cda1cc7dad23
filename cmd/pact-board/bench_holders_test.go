package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkEventsHolders1000 is what 1,000 held pact_events calls cost the
// board process: heap, goroutine stacks, resident memory and goroutines per
// holder, and database backends while they are held. Each holder is its own
// agent. The 1,000 HTTP clients run in a helper process (this test binary
// again, TestHolderProcess), so the board's process holds only the server
// side. Round 1 measures, then the clients cancel (disconnect) and the
// board must see every call end; round 2 holds them again and wakes all
// 1,000 with one pact_post, and reports how long until the last returns.
func BenchmarkEventsHolders1000(b *testing.B) {
	const n = 1000
	ids := []string{"poster"}
	for i := range n {
		ids = append(ids, fmt.Sprintf("holder-%04d", i))
	}
	bb := startBenchBoard(b, "runner", ids...)
	poster := bb.session(b, bb.agents[0])
	holders := bb.agents[1:]
	ctx := context.Background()

	var file bytes.Buffer
	for _, h := range holders {
		fmt.Fprintf(&file, "%s %s %s\n", h.id, h.token, h.root)
	}
	path := b.TempDir() + "/holders"
	if err := os.WriteFile(path, file.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestHolderProcess$", "-test.count=1")
	helper.Env = append(os.Environ(), holderEnv+"="+path, holderURL+"="+bb.base)
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
		err := bb.d.NewRaw(`SELECT (SELECT count(*) FROM agents WHERE listening_until > now()),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
				AND state <> 'idle')`).Scan(ctx, &held, &backends, &busy)
		if err != nil {
			b.Fatal(err)
		}
		return held, backends, busy
	}
	// hold opens the 1,000 calls and returns once the board holds them all
	// and is idle (twice in a row), with the most backends seen meanwhile.
	hold := func() (setup time.Duration, maxBackends int) {
		b.Helper()
		start := time.Now()
		command("hold")
		quiet := 0
		for quiet < 2 {
			if time.Since(start) > 40*time.Second {
				held, _, _ := listening()
				b.Fatalf("only %d of %d calls held after 40 s", held, n)
			}
			time.Sleep(50 * time.Millisecond)
			held, backends, busy := listening()
			maxBackends = max(maxBackends, backends)
			if held == n && busy == 0 {
				if quiet == 0 {
					setup = time.Since(start)
				}
				quiet++
			} else {
				quiet = 0
			}
		}
		return setup, maxBackends
	}

	// Warm up: the MCP server is built, the pool and the listener connect.
	if _, err := callTool(ctx, poster, "pact_events", map[string]any{"mandate_id": bb.agents[0].root, "seconds": 0}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		before := processMemory()
		setup, maxBackends := hold()
		after := processMemory()
		b.ReportMetric(float64(after.heap-before.heap)/n, "heap-B/holder")
		b.ReportMetric(float64(after.stack-before.stack)/n, "stack-B/holder")
		b.ReportMetric(float64(after.rss-before.rss)/n, "rss-B/holder")
		b.ReportMetric(float64(after.goroutines-before.goroutines)/n, "goroutines/holder")
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
			if time.Since(released) > 20*time.Second {
				b.Fatalf("20 s after the clients left: %d still listening, %d goroutines (%d before)",
					held, runtime.NumGoroutine(), before.goroutines)
			}
			time.Sleep(20 * time.Millisecond)
		}
		b.ReportMetric(inMS(time.Since(released)), "release-ms")

		// Hold again, then wake everyone with one task.
		hold()
		posted := time.Now()
		if _, err := callTool(ctx, poster, "pact_post", map[string]any{"mandate_id": bb.agents[0].root, "project_id": "web",
			"title": "Work for everyone"}); err != nil {
			b.Fatal(err)
		}
		s = command("wait")
		if s.WithTask != n {
			b.Fatalf("%d of %d holders returned with the task: %+v", s.WithTask, n, s)
		}
		b.ReportMetric(inMS(time.Unix(0, s.First).Sub(posted)), "wake-first-ms")
		b.ReportMetric(inMS(time.Unix(0, s.Median).Sub(posted)), "wake-p50-ms")
		b.ReportMetric(inMS(time.Unix(0, s.Last).Sub(posted)), "wake-last-ms")
		// The next round starts from an empty board again.
		if _, err := bb.d.ExecContext(ctx, `UPDATE tasks SET status = 'canceled' WHERE status = 'submitted'`); err != nil {
			b.Fatal(err)
		}
	}
}

type memStats struct {
	heap, stack, rss uint64
	goroutines       int
}

// processMemory is the process's heap and stacks in use after a GC, its resident
// set (VmRSS) and its goroutines.
func processMemory() memStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := memStats{heap: m.HeapInuse, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}
	status, _ := os.ReadFile("/proc/self/status")
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			s.rss = kb * 1024
		}
	}
	return s
}

// holderSummary is the helper process's account of one round.
type holderSummary struct {
	Returned, Canceled, OK, WithTask int
	// First, Median and Last are when calls returned, in Unix nanoseconds.
	First, Median, Last int64
	Errors              []string `json:",omitempty"`
}

// TestHolderProcess is not a test: it is the client side of
// BenchmarkEventsHolders1000, run in a process of its own. It reads
// commands on stdin: "hold" sends one pact_events call per holder as a
// plain JSON-RPC POST of the stateless protocol (2026-07-28: no
// initialize, the version in a header and in _meta); "cancel" disconnects
// them all; "wait" waits for the board to answer them all. Each command is
// answered with one line "holders: <summary JSON>".
func TestHolderProcess(t *testing.T) {
	path := os.Getenv(holderEnv)
	if path == "" {
		t.Skip("the client side of BenchmarkEventsHolders1000")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var holders [][3]string
	for line := range strings.Lines(string(raw)) {
		if f := strings.Fields(line); len(f) == 3 {
			holders = append(holders, [3]string{f[0], f[1], f[2]})
		}
	}
	base := os.Getenv(holderURL)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: len(holders)}}

	type result struct {
		at              time.Time
		ok, task, abort bool
		err             string
	}
	var (
		wg      sync.WaitGroup
		results []result
		cancel  context.CancelFunc = func() {}
	)
	summary := func() {
		wg.Wait()
		var s holderSummary
		var at []int64
		for _, r := range results {
			s.Returned++
			at = append(at, r.at.UnixNano())
			switch {
			case r.abort:
				s.Canceled++
			case r.ok:
				s.OK++
				if r.task {
					s.WithTask++
				}
			}
			if r.err != "" && len(s.Errors) < 5 {
				s.Errors = append(s.Errors, r.err)
			}
		}
		slices.Sort(at)
		if len(at) > 0 {
			s.First, s.Median, s.Last = at[0], at[len(at)/2], at[len(at)-1]
		}
		out, _ := json.Marshal(s)
		fmt.Printf("holders: %s\n", out)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "hold":
			var ctx context.Context
			ctx, cancel = context.WithCancel(context.Background())
			results = make([]result, len(holders))
			for i, h := range holders {
				wg.Go(func() {
					ok, task, err := holdEvents(ctx, client, base, h[0], h[1], h[2])
					results[i] = result{at: time.Now(), ok: ok, task: task, abort: errors.Is(err, context.Canceled)}
					if err != nil && !errors.Is(err, context.Canceled) {
						results[i].err = err.Error()
					}
				})
			}
			fmt.Println(`holders: {}`)
		case "cancel":
			cancel()
			summary()
		case "wait":
			summary()
			cancel()
			client.CloseIdleConnections()
		}
	}
	cancel()
}

// holdEvents makes one pact_events call as a raw stateless MCP request and
// reports whether it succeeded and returned a task.
func holdEvents(ctx context.Context, client *http.Client, base, agent, token, mandateID string) (ok, task bool, err error) {
	const version = "2026-07-28"
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "pact_events", "arguments": map[string]any{"mandate_id": mandateID, "seconds": 50},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "holder", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp/a/"+agent, bytes.NewReader(body))
	if err != nil {
		return false, false, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "pact_events")
	resp, err := client.Do(req)
	if err != nil {
		return false, false, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, false, err
	}
	var out struct {
		Result *struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Tasks []json.RawMessage `json:"tasks"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK || out.Result == nil || out.Result.IsError {
		return false, false, fmt.Errorf("status %d: %s", resp.StatusCode, raw)
	}
	return true, len(out.Result.StructuredContent.Tasks) > 0, nil
}
