package board_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// world is a board with people, projects and agents, driven through the
// kernel's tool pipeline exactly as the MCP transport drives it.
type world struct {
	t        *testing.T
	d        *db.DB
	k        *kernel.Kernel
	ident    *identity.Service
	mandates *mandate.Service
	board    *board.Module
	hub      *events.Hub
	roots    map[string]string // agent → root mandate id
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{t: t, d: pgtest.New(t), roots: map[string]string{}}
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	log := ledger.New(nil)
	w.mandates = mandate.NewService(keys, nil)
	w.ident = identity.NewService(w.d, log, w.mandates, nil)
	w.hub = events.NewHub(w.d.Pool, nil)
	hubCtx, stopHub := context.WithCancel(context.Background())
	go func() { _ = w.hub.Run(hubCtx) }()
	t.Cleanup(stopHub)
	w.k = kernel.New(kernel.Deps{DB: w.d, Log: log, Mandates: w.mandates, Identity: w.ident, Events: w.hub})
	w.board = board.New()
	require.NoError(t, w.k.Register(w.board))

	_, err = w.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	for _, p := range []struct {
		id   string
		prod bool
	}{{"web", false}, {"api", false}, {"prod", true}} {
		_, err := w.ident.AddProject(ctx, "ana", p.id, p.id, p.prod)
		require.NoError(t, err)
	}
	w.agent("code-web", "code", nil, "web")
	w.agent("chat-web", "chat", nil, "web", "api")
	w.agent("runner-web", "runner", map[string]float64{"runs": 3, "turns": 100}, "web")
	w.agent("gemini-web", "gemini", nil, "web")
	return w
}

func (w *world) agent(id, client string, limits map[string]float64, projects ...string) {
	r, err := w.ident.RegisterAgent(context.Background(), "ana", identity.AgentInput{ID: id, Client: client,
		Projects: projects, Limits: limits, Delegations: ptr(3)})
	require.NoError(w.t, err)
	w.roots[id] = r.RootMandateID.String()
}

// call runs tool as agent and returns its result as decoded JSON.
func (w *world) call(agent, tool string, args map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(args)
	require.NoError(w.t, err)
	out, err := w.k.Tools().Call(context.Background(), agent, tool, raw)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	require.NoError(w.t, err)
	var m map[string]any
	require.NoError(w.t, json.Unmarshal(b, &m))
	return m, nil
}

func (w *world) ok(agent, tool string, args map[string]any) map[string]any {
	w.t.Helper()
	out, err := w.call(agent, tool, args)
	require.NoError(w.t, err, "%s %s", agent, tool)
	return out
}

func (w *world) refused(code errs.Code, agent, tool string, args map[string]any) *errs.Error {
	w.t.Helper()
	_, err := w.call(agent, tool, args)
	require.Equal(w.t, code, errs.CodeOf(err), "%s %s: %v", agent, tool, err)
	e, _ := errs.As(err)
	return e
}

func (w *world) count(q string, args ...any) int {
	w.t.Helper()
	var n int
	require.NoError(w.t, w.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

func (w *world) exec(q string, args ...any) {
	w.t.Helper()
	_, err := w.d.ExecContext(context.Background(), q, args...)
	require.NoError(w.t, err)
}

// post posts a task as agent under its root mandate and returns its id.
func (w *world) post(agent, project, title string, extra map[string]any) string {
	w.t.Helper()
	args := map[string]any{"project_id": project, "title": title, "mandate_id": w.roots[agent]}
	for k, v := range extra {
		args[k] = v
	}
	return w.ok(agent, "pact_post", args)["task_id"].(string)
}

// verifyLog checks every chain of the database.
func (w *world) verifyLog() {
	w.t.Helper()
	vs, err := ledger.New(nil).VerifyAll(context.Background(), w.d, nil)
	require.NoError(w.t, err)
	for _, chains := range vs {
		for _, v := range chains {
			require.True(w.t, v.OK, "%s: %s", v.ChainKey, v.Reason)
		}
	}
}

func ptr[T any](v T) *T { return &v }
