package main

// Benchmarks of the board over MCP: the real board in-process, a fresh test
// database, real go-sdk clients over HTTP (docs/benchmarks.md, "The board
// over MCP"). Latency percentiles are reported with b.ReportMetric; nothing
// here asserts a speed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPCalls is calls per second and latency of the board's common
// tools through HTTP, with 1 and 16 concurrent clients. Each client is its
// own agent with its own go-sdk session and HTTP transport; a call is timed
// at the client, from CallTool to its decoded result.
func BenchmarkMCPCalls(b *testing.B) {
	ids := make([]string, 16)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench-%02d", i)
	}
	bb := startBenchBoard(b, "code", ids...)
	sessions := make([]*mcp.ClientSession, len(bb.agents))
	for i, a := range bb.agents {
		sessions[i] = bb.session(b, a)
	}
	// pact_list answers a page of 20 open tasks (its default filter).
	bb.seedTasks(b, bb.agents[0], 20)

	type argsFunc func(client int, task string) map[string]any
	tools := []struct {
		name  string
		tasks bool // each call claims a task of its own, seeded beforehand
		args  argsFunc
	}{
		{"pact_whoami", false, func(int, string) map[string]any { return nil }},
		{"pact_list", false, func(c int, _ string) map[string]any {
			return map[string]any{"mandate_id": bb.agents[c].root, "project_id": "web"}
		}},
		{"pact_post", false, func(c int, _ string) map[string]any {
			return map[string]any{"mandate_id": bb.agents[c].root, "project_id": "web", "title": "A benchmark task",
				"body": "Posted by BenchmarkMCPCalls."}
		}},
		{"pact_claim", true, func(c int, task string) map[string]any {
			return map[string]any{"mandate_id": bb.agents[c].root, "task_id": task}
		}},
	}
	for _, tool := range tools {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/clients=%d", tool.name, clients), func(b *testing.B) {
				var tasks []string
				if tool.tasks {
					tasks = bb.seedTasks(b, bb.agents[0], b.N)
				}
				loadCalls(b, clients, func(ctx context.Context, c, k int) error {
					var task string
					if tool.tasks {
						task = tasks[k-1]
					}
					_, err := callTool(ctx, sessions[c], tool.name, tool.args(c, task))
					return err
				})
				if tool.tasks { // keep the stale-claim scan of later runs as short as at the start
					if _, err := bb.d.ExecContext(context.Background(),
						`UPDATE tasks SET status = 'completed' WHERE status = 'working'`); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}

	// 16 clients race for each task at once: one claim wins, 15 are refused
	// with already_claimed (their transaction rolls back, then the refusal
	// is logged in a transaction of its own). One op is one round.
	b.Run("pact_claim_race/clients=16", func(b *testing.B) {
		const clients = 16
		tasks := bb.seedTasks(b, bb.agents[0], b.N)
		lat := make([]time.Duration, 0, clients*b.N)
		type outcome struct {
			d   time.Duration
			won bool
			err error
		}
		out := make([]outcome, clients)
		b.ResetTimer()
		start := time.Now()
		for r := range b.N {
			var wg sync.WaitGroup
			for c := range clients {
				wg.Go(func() {
					t0 := time.Now()
					_, err := callTool(context.Background(), sessions[c], "pact_claim",
						map[string]any{"mandate_id": bb.agents[c].root, "task_id": tasks[r]})
					out[c] = outcome{d: time.Since(t0), won: err == nil, err: err}
					var refused *refusedError
					if errors.As(err, &refused) && strings.Contains(refused.text, `"already_claimed"`) {
						out[c].err = nil
					}
				})
			}
			wg.Wait()
			winners := 0
			for _, o := range out {
				if o.err != nil {
					b.Fatal(o.err)
				}
				if o.won {
					winners++
				}
				lat = append(lat, o.d)
			}
			if winners != 1 {
				b.Fatalf("round %d: %d winners", r, winners)
			}
		}
		elapsed := time.Since(start)
		b.StopTimer()
		b.ReportMetric(float64(clients*b.N)/elapsed.Seconds(), "calls/s")
		reportLatency(b, lat, "")
		if _, err := bb.d.ExecContext(context.Background(),
			`UPDATE tasks SET status = 'completed' WHERE status = 'working'`); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkMCPWakeLatency is how soon a held pact_wait returns at its client
// after another agent's pact_message to it commits, both over MCP.
//
// commit-p50/p99 are measured from the message's log entry timestamp (taken
// in its transaction just before COMMIT; same clock, same process) to the
// moment pact_wait's result is decoded at the waiting client. send-p50/p99
// start instead when the sender calls pact_message, so they include that
// call's own work. ns/op is the cycle, including a 20 ms pause that lets
// the wait subscribe before the message is sent.
func BenchmarkMCPWakeLatency(b *testing.B) {
	bb := startBenchBoard(b, "code", "sender", "waiter")
	sender, waiter := bb.agents[0], bb.agents[1]
	sc, wc := bb.session(b, sender), bb.session(b, waiter)
	ctx := context.Background()
	type waited struct {
		at   time.Time
		text string
		err  error
	}
	var commit, send []time.Duration
	var task string
	for i := 0; b.Loop(); i++ {
		if i%10 == 0 { // agents may send each other 10 messages per task
			text, err := callTool(ctx, sc, "pact_post", map[string]any{"mandate_id": sender.root, "project_id": "web",
				"title": "Wake benchmark"})
			if err != nil {
				b.Fatal(err)
			}
			var p struct {
				TaskID string `json:"task_id"`
			}
			if err := json.Unmarshal([]byte(text), &p); err != nil {
				b.Fatal(err)
			}
			task = p.TaskID
		}
		done := make(chan waited, 1)
		go func() {
			text, err := callTool(ctx, wc, "pact_wait", map[string]any{"mandate_id": waiter.root, "seconds": 10})
			done <- waited{time.Now(), text, err}
		}()
		time.Sleep(20 * time.Millisecond)
		sent := time.Now()
		if _, err := callTool(ctx, sc, "pact_message", map[string]any{"mandate_id": sender.root, "task_id": task,
			"to": waiter.id, "body": "ping " + strconv.Itoa(i)}); err != nil {
			b.Fatal(err)
		}
		w := <-done
		if w.err != nil {
			b.Fatal(w.err)
		}
		if !strings.Contains(w.text, `"ping `+strconv.Itoa(i)+`"`) {
			b.Fatalf("pact_wait returned without the message: %s", w.text)
		}
		var at time.Time
		if err := bb.d.NewRaw(`SELECT at FROM entries WHERE action = 'pact_message' AND agent_id = ? ORDER BY id DESC LIMIT 1`,
			sender.id).Scan(ctx, &at); err != nil {
			b.Fatal(err)
		}
		commit = append(commit, w.at.Sub(at))
		send = append(send, w.at.Sub(sent))
	}
	reportLatency(b, commit, "commit-")
	reportLatency(b, send, "send-")
}

// holderEnv names the holders file of the helper process; holderURL the
// board.
const holderEnv, holderURL = "PACT_BENCH_HOLDERS", "PACT_BENCH_URL"
