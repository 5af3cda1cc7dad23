package main

// The harness of the benchmarks (docs/benchmarks.md, "The board over MCP"):
// the real board on a fresh test database, its agents, and their clients.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
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
	// Registering goes through a handle of its own, closed afterwards.
	reg, err := db.Open(ctx, dsn+" pool_max_conns=4")
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	ident := identity.NewService(reg, ledger.New(nil), mandate.NewService(keys, nil), nil)
	if _, err := ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner}); err != nil {
		b.Fatal(err)
	}
	if _, err := ident.AddProject(ctx, "ana", "web", "Web", false); err != nil {
		b.Fatal(err)
	}
	bb := &benchBoard{base: "http://" + m.Addr().String(), d: d, logs: logs, agents: make([]benchAgent, len(ids))}
	// Four at a time: each registration appends to the organization's one
	// chain, but signs and hashes on its own, and 10,000 agents one after
	// the other take minutes.
	var wg sync.WaitGroup
	slots, failed := make(chan struct{}, 4), make(chan error, 1)
	for i, id := range ids {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			r, err := ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: id, Client: client, Projects: []string{"web"},
				Scope: []string{"task.read@project:web", "task.post@project:web", "task.work@project:web"}})
			if err != nil {
				select {
				case failed <- err:
				default:
				}
				return
			}
			bb.agents[i] = benchAgent{id: id, token: r.Token, root: r.RootMandateID.String()}
		})
	}
	wg.Wait()
	select {
	case err := <-failed:
		b.Fatal(err)
	default:
	}
	return bb
}

// agentTransport is one agent's own HTTP client state (as each agent
// process would have), adding its bearer token to every request.
type agentTransport struct {
	token string
	base  *http.Transport
}

func (t agentTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// session connects a real go-sdk client as agent a, with its own transport.
func (bb *benchBoard) session(b testing.TB, a benchAgent) *mcp.ClientSession {
	b.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-" + a.id, Version: "1"}, nil)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: bb.base + "/mcp/a/" + a.id,
		HTTPClient: &http.Client{Transport: agentTransport{token: a.token, base: tr}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close(); tr.CloseIdleConnections() })
	return cs
}

// callTool makes one call and returns its JSON text; a refusal is an error.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("%s: %d contents", name, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return text, &refusedError{tool: name, text: text}
	}
	return text, nil
}

type refusedError struct{ tool, text string }

func (e *refusedError) Error() string { return e.tool + " refused: " + e.text }

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

func latencyAt(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func inMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// reportLatency reports p50 and p99 of lat (sorted in place) in ms.
func reportLatency(b *testing.B, lat []time.Duration, prefix string) {
	slices.Sort(lat)
	b.ReportMetric(inMS(latencyAt(lat, 50)), prefix+"p50-ms")
	b.ReportMetric(inMS(latencyAt(lat, 99)), prefix+"p99-ms")
}

// holderEnv names the holders file of the helper process; holderURL the
// board.
const holderEnv, holderURL = "PACT_BENCH_HOLDERS", "PACT_BENCH_URL"
