package main

// The harness of the benchmarks (docs/benchmarks.md, "The board over MCP"):
// the real board on a fresh test database, its agents, and their clients.

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/people"
)

// benchBoard is a running board with registered agents, all in project web.
type benchBoard struct {
	base   string
	dsn    string // the board's database
	d      *db.DB // the benchmark's own handle on the board's database
	logs   *logtest.Buffer
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
		return map[string]string{"DATABASE_URL": dsn, "PACT_SIGNING_KEY": testSigningKey, "PORT": "0", "PACT_DRAIN_SECONDS": "0"}[k]
	})
	if err != nil {
		b.Fatal(err)
	}
	logs := &logtest.Buffer{}
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
	ident := identity.NewService(d, ledger.New(nil), nil)
	if _, err := ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner}); err != nil {
		b.Fatal(err)
	}
	if _, err := ident.AddProject(ctx, "ana", "web", "Web", false); err != nil {
		b.Fatal(err)
	}
	bb := &benchBoard{base: "http://" + m.Addr().String(), dsn: dsn, d: d, logs: logs}
	for _, id := range ids {
		r, err := registerAgent(ctx, d, ident, "ana", people.AgentInput{ID: id, Client: client, Projects: []string{"web"},
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
