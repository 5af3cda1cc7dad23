package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const publicURL = "https://board.example"

// Tokens of the fixture. Only live and other are accepted anywhere, each
// for its own agent.
const (
	live    = "pact_live-token-of-code-web"
	other   = "pact_live-token-of-code-api"
	expired = "pact_expired-token-of-code-web"
	revoked = "pact_revoked-token-of-code-web"
)

type fixture struct {
	d     *db.DB
	k     *kernel.Kernel
	srv   *httptest.Server
	logs  *syncBuffer
	calls chan blocked // test_block announces each call here
}

// blocked is a running test_block call: done closes when its context ends.
type blocked struct{ done <-chan struct{} }

// testModule registers the tools and the resource the tests call.
type testModule struct{ f *fixture }

func (testModule) Name() string { return "testtools" }

func object(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

func (m testModule) Register(h *kernel.Host) error {
	str := &jsonschema.Schema{Type: "string", Description: "any text"}
	tools := []kernel.Tool{
		{Name: "test_echo", Title: "Echo", Description: "Returns the caller and the arguments.",
			Input: object(map[string]*jsonschema.Schema{"agent": str, "x": {Type: "integer"}}),
			Run: func(_ context.Context, c *kernel.Call) (any, error) {
				var args map[string]any
				_ = json.Unmarshal(c.Args, &args)
				return map[string]any{"agent": c.AgentID, "org": c.OrgID, "args": args, "note": "a <b> & c"}, nil
			}},
		{Name: "test_refuse", Title: "Refuse", Description: "Always refuses, naming a mandate.",
			Input: object(nil),
			Run: func(context.Context, *kernel.Call) (any, error) {
				return nil, errs.Mandate(errs.ScopeExceeded, "m-1", "mandate m-1 does not cover task.post:<web>")
			}},
		{Name: "test_greet", Title: "Greet", Description: "Greets name.",
			Input: object(map[string]*jsonschema.Schema{"name": {Type: "string", Description: "who to greet"}}, "name"),
			Run: func(_ context.Context, c *kernel.Call) (any, error) {
				var in struct{ Name string }
				_ = json.Unmarshal(c.Args, &in)
				return map[string]string{"greeting": "hello " + in.Name}, nil
			}},
		{Name: "test_crash", Title: "Crash", Description: "Fails with an internal error.",
			Input: object(nil),
			Run: func(context.Context, *kernel.Call) (any, error) {
				return nil, errors.New("disk on fire at /secret/path")
			}},
		{Name: "test_list", Title: "List", Description: "Returns an array.",
			Input: object(nil),
			Run:   func(context.Context, *kernel.Call) (any, error) { return []int{1, 2}, nil }},
		{Name: "test_block", Title: "Block", Description: "Waits until its call is abandoned (at most 30 s).",
			Input: object(nil),
			Run: func(ctx context.Context, _ *kernel.Call) (any, error) {
				m.f.calls <- blocked{done: ctx.Done()}
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(30 * time.Second):
					return map[string]bool{"finished": true}, nil
				}
			}},
	}
	for _, t := range tools {
		if err := h.Tool(t); err != nil {
			return err
		}
	}
	type greeting struct {
		Greeting string `json:"greeting" jsonschema:"The greeting."`
	}
	type whom struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	if err := kernel.AddTool(h, kernel.ToolSpec{Name: "test_typed", Title: "Typed greet", Description: "Greets name, typed."},
		func(_ context.Context, _ *kernel.Call, in whom) (greeting, error) {
			return greeting{Greeting: "hello " + in.Name}, nil
		}); err != nil {
		return err
	}
	return h.Resource(kernel.Resource{
		URITemplate: "pact://projects/{project_id}/context/{key}", Name: "Project note", Title: "Project note",
		Description: "One note.", MIMEType: "application/json",
		Read: func(_ context.Context, agent, uri string, p map[string]string) (string, error) {
			if p["key"] == "secret" {
				return "", errs.E(errs.NotFound, "note secret does not exist")
			}
			b, _ := json.Marshal(map[string]any{"agent": agent, "uri": uri, "params": p})
			return string(b), nil
		},
	})
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{d: pgtest.New(t), logs: &syncBuffer{}, calls: make(chan blocked, 4)}
	_, err := f.d.ExecContext(context.Background(), `
		INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner');
		INSERT INTO agents (id, org_id, owner, client) VALUES ('code-web', 'default', 'ana', 'code'), ('code-api', 'default', 'ana', 'code');
		INSERT INTO agent_tokens (token_hash, agent_id, expires_at, revoked_at) VALUES
			(?, 'code-web', now() + interval '1 day', NULL),
			(?, 'code-api', now() + interval '1 day', NULL),
			(?, 'code-web', now() - interval '1 second', NULL),
			(?, 'code-web', now() + interval '1 day', now());`,
		identity.HashToken(live), identity.HashToken(other), identity.HashToken(expired), identity.HashToken(revoked))
	require.NoError(t, err)

	logger := hclog.New(&hclog.LoggerOptions{Output: f.logs, Level: hclog.Debug})
	log := ledger.New(nil)
	ident := identity.NewService(f.d, log, nil, nil)
	f.k = kernel.New(kernel.Deps{DB: f.d, Log: log, Identity: ident, Logger: logger})
	require.NoError(t, f.k.Register(testModule{f},
		mcpserve.New(mcpserve.Options{Resources: f.k.Resources(), PublicURL: publicURL})))
	f.srv = httptest.NewServer(f.k.Handler())
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) url(agent string) string { return f.srv.URL + "/mcp/a/" + agent }

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens a go-sdk client session as agent with token at protocol
// version (empty: the latest).
func (f *fixture) connect(t *testing.T, endpoint, token, version string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           &http.Client{Transport: bearer{token, http.DefaultTransport}},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// post sends one raw JSON-RPC body to path with token ("" sends none).
func (f *fixture) post(t *testing.T, path, token, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// outcomes returns the log's (action, outcome) pairs for agent, oldest first.
func (f *fixture) outcomes(t *testing.T, agent string) [][2]string {
	t.Helper()
	var rows []struct {
		Action  string `bun:"action"`
		Outcome string `bun:"outcome"`
	}
	require.NoError(t, f.d.NewRaw(`SELECT action, outcome FROM entries WHERE agent_id = ? ORDER BY id`, agent).
		Scan(context.Background(), &rows))
	out := make([][2]string, len(rows))
	for i, r := range rows {
		out[i] = [2]string{r.Action, r.Outcome}
	}
	return out
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
