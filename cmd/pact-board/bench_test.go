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

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
)

// benchBoard is a running board with registered agents, all in project web.
type benchBoard struct {
	base   string
	dsn    string // the board's database
	d      *db.DB // the benchmark's own handle on the board's database
	logs   *syncBuffer
	agents []benchAgent
}

type benchAgent struct{ id, token, root string }

// startBenchBoard runs the board as startBoard does (Info logging, as in
// production), then registers agents ids with client kind client.
func startBenchBoard(b testing.TB, client string, ids ...string) *benchBoard {
	b.Helper()
	ctx := context.Background()
	dsn := pgtest.NewDSN(b)
	cfg, err := boot.Load(func(k string) string {
		return map[string]string{"DATABASE_URL": dsn, "PACT_SIGNING_KEY": testSigningKey, "PORT": "0"}[k]
	})
	if err != nil {
		b.Fatal(err)
	}
	logs := &syncBuffer{}
	m := NewMain(cfg, hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info}))
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	select {
	case <-m.Ready():
	case err := <-done:
		cancel()
		b.Fatalf("board did not start: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		cancel()
		b.Fatalf("board did not start within 30s\n%s", logs)
	}
	b.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			b.Errorf("board did not stop within 30s")
		}
		_ = m.Close()
	})

	// One connection is enough for the benchmark's own queries, and keeps
	// the count of the board's backends in pg_stat_activity exact.
	d, err := db.Open(ctx, dsn+" pool_max_conns=1")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(d.Close)
	keys, err := mandate.ParseKeyring("", testSigningKey)
	if err != nil {
		b.Fatal(err)
	}
	ident := identity.NewService(d, ledger.New(nil), mandate.NewService(keys, nil), nil)
	if _, err := ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner}); err != nil {
		b.Fatal(err)
	}
	if _, err := ident.AddProject(ctx, "ana", "web", "Web", false); err != nil {
		b.Fatal(err)
	}
	bb := &benchBoard{base: "http://" + m.Addr().String(), dsn: dsn, d: d, logs: logs}
	for _, id := range ids {
		r, err := ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: id, Client: client, Projects: []string{"web"},
			Scope: []string{"task.read@project:web", "task.post@project:web", "task.work@project:web"}})
		if err != nil {
			b.Fatal(err)
		}
		bb.agents = append(bb.agents, benchAgent{id: id, token: r.Token, root: r.RootMandateID.String()})
	}
	return bb
}

// seedTasks inserts n open, undelegated tasks in project web posted by
// agent a, straight into the database (what pact_post would leave, minus
// its log entry), and returns their ids.
func (bb *benchBoard) seedTasks(b testing.TB, a benchAgent, n int) []string {
	b.Helper()
	var ids []string
	err := bb.d.NewRaw(`INSERT INTO tasks (id, project_id, title, action, created_by, mandate_id, status)
		SELECT gen_random_uuid(), 'web', 'bench task ' || g, 'task.work', ?, ?::uuid, 'submitted'
		FROM generate_series(1, ?) g RETURNING id::text`, a.id, a.root, n).Scan(context.Background(), &ids)
	if err != nil {
		b.Fatal(err)
	}
	return ids
}

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
