package board_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) {
	// The Admin API answers with its own error model, as cmd/pact-board sets it.
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	pgtest.Main(m)
}

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
	srv      *httptest.Server
	roots    map[string]string // agent → root mandate id

	mu       sync.Mutex
	tokens   map[string]string // agent → token
	sessions map[string]*mcp.ClientSession
	outputs  map[string]*jsonschema.Resolved // tool → its declared output schema
}

func newWorld(t *testing.T, extra ...kernel.Module) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{t: t, d: pgtest.New(t), roots: map[string]string{}, tokens: map[string]string{}, sessions: map[string]*mcp.ClientSession{}}
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
	// Agents reach the board as they do in production: a real MCP client
	// over HTTP to /mcp/a/<agent> with the agent's token.
	require.NoError(t, w.k.Register(append(extra, w.board, mcpserve.New(mcpserve.Options{Resources: w.k.Resources(), PublicURL: "http://board.test"}))...))
	w.srv = httptest.NewServer(w.k.Handler())
	t.Cleanup(w.srv.Close)

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
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roots[id] = r.RootMandateID.String()
	w.tokens[id] = r.Token
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// session is agent's MCP client session, opened on first use.
func (w *world) session(agent string) *mcp.ClientSession {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cs, ok := w.sessions[agent]; ok {
		return cs
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "board-test-" + agent, Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: w.srv.URL + "/mcp/a/" + agent,
		HTTPClient: &http.Client{Transport: bearer{w.tokens[agent]}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(w.t, err)
	w.t.Cleanup(func() { _ = cs.Close() })
	w.sessions[agent] = cs
	return cs
}

// call runs tool as agent over MCP and returns its result as decoded JSON,
// or its refusal as an *errs.Error rebuilt from the isError result's JSON.
func (w *world) call(agent, tool string, args map[string]any) (map[string]any, error) {
	res, err := w.session(agent).CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	require.Len(w.t, res.Content, 1)
	text := res.Content[0].(*mcp.TextContent).Text
	var out map[string]any
	require.NoError(w.t, json.Unmarshal([]byte(text), &out), text)
	if !res.IsError {
		w.checkOutput(agent, tool, text, res.StructuredContent)
	}
	if res.IsError {
		e := &errs.Error{Code: errs.Code(out["error"].(string)), Message: out["message"].(string)}
		if id, ok := out["mandate_id"].(string); ok {
			e.MandateID = id
		}
		return nil, e
	}
	return out, nil
}

// checkOutput requires a result's structured content to be its text and to
// validate against the output schema tools/list declares for the tool.
func (w *world) checkOutput(agent, tool, text string, structured any) {
	w.t.Helper()
	b, err := json.Marshal(structured)
	require.NoError(w.t, err)
	require.JSONEq(w.t, text, string(b), "%s: structuredContent is the text's JSON", tool)
	w.mu.Lock()
	if w.outputs == nil {
		w.outputs = map[string]*jsonschema.Resolved{}
		w.mu.Unlock()
		res, err := w.session(agent).ListTools(context.Background(), nil)
		require.NoError(w.t, err)
		w.mu.Lock()
		for _, t := range res.Tools {
			if t.OutputSchema == nil {
				continue
			}
			raw, err := json.Marshal(t.OutputSchema)
			require.NoError(w.t, err)
			var s jsonschema.Schema
			require.NoError(w.t, json.Unmarshal(raw, &s), t.Name)
			w.outputs[t.Name], err = s.Resolve(nil)
			require.NoError(w.t, err, t.Name)
		}
	}
	schema := w.outputs[tool]
	w.mu.Unlock()
	require.NotNil(w.t, schema, "%s declares no output schema", tool)
	var v any
	require.NoError(w.t, json.Unmarshal(b, &v))
	require.NoError(w.t, schema.Validate(v), "%s: %s", tool, text)
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
