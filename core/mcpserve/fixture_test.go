package mcpserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

const publicURL = "https://board.example"

// fixture is a kerneltest board with the test tools and the MCP transport
// at publicURL: ana (owner), the project web and the agents code-web and
// code-api, each with a live token; code-web also holds an expired and a
// revoked one. Only live and other are accepted anywhere, each for its own
// agent.
type fixture struct {
	*kerneltest.World
	logs  *logtest.Buffer
	calls chan blocked // test_block announces each call here
	since int64        // the last log entry of the set-up
	// ready is what test_wait waits for; prepared and ended count its
	// waits made and ended.
	ready           atomic.Bool
	prepared, ended atomic.Int32

	live, other, expired, revoked string
}

// blocked is a running test_block call: done closes when its context ends.
type blocked struct{ done <-chan struct{} }

// testModule registers the tools and the resource the tests call.
type testModule struct{ f *fixture }

func (testModule) Name() string { return "testtools" }

func object(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required,
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
}

func (m testModule) Register(h *kernel.Host) error {
	str := &jsonschema.Schema{Type: "string", Description: "any text"}
	tools := []kernel.Tool{
		{Name: "test_echo", Effect: kernel.Reads, Title: "Echo", Description: "Returns the caller and the arguments.",
			Input: object(map[string]*jsonschema.Schema{"agent": str, "x": {Type: "integer"}}),
			Run: func(_ context.Context, c *kernel.Call) (any, error) {
				var args map[string]any
				_ = json.Unmarshal(c.Args, &args)
				return map[string]any{"agent": c.AgentID, "org": c.OrgID, "args": args, "note": "a <b> & c"}, nil
			}},
		{Name: "test_refuse", Effect: kernel.Reads, Title: "Refuse", Description: "Always refuses, naming a mandate.",
			Input: object(nil),
			Run: func(context.Context, *kernel.Call) (any, error) {
				return nil, errs.Mandate(errs.ScopeExceeded, "m-1", "mandate m-1 does not cover task.post:<web>")
			}},
		{Name: "test_greet", Effect: kernel.Reads, Title: "Greet", Description: "Greets name.",
			Input: object(map[string]*jsonschema.Schema{"name": {Type: "string", Description: "who to greet"}}, "name"),
			Run: func(_ context.Context, c *kernel.Call) (any, error) {
				var in struct{ Name string }
				_ = json.Unmarshal(c.Args, &in)
				return map[string]string{"greeting": "hello " + in.Name}, nil
			}},
		{Name: "test_crash", Effect: kernel.Reads, Title: "Crash", Description: "Fails with an internal error.",
			Input: object(nil),
			Run: func(context.Context, *kernel.Call) (any, error) {
				return nil, errors.New("disk on fire at /secret/path")
			}},
		{Name: "test_list", Effect: kernel.Reads, Title: "List", Description: "Returns an array.",
			Input: object(nil),
			Run:   func(context.Context, *kernel.Call) (any, error) { return []int{1, 2}, nil }},
		{Name: "test_block", Effect: kernel.Reads, Title: "Block", Description: "Waits until its call is abandoned (at most 30 s).",
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
		{Name: "test_wait", Effect: kernel.Reads, Title: "Wait", Description: "Waits up to ms milliseconds for the fixture's ready.",
			Input: object(map[string]*jsonschema.Schema{"ms": {Type: "integer"}, "refuse": {Type: "boolean"}}),
			Wait:  m.wait,
			Run: func(_ context.Context, c *kernel.Call) (any, error) {
				return map[string]any{"agent": c.AgentID, "ready": m.f.ready.Load()}, nil
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
	if err := kernel.AddTool(h, kernel.ToolSpec{Name: "test_typed", Effect: kernel.Reads, Title: "Typed greet", Description: "Greets name, typed."},
		func(_ context.Context, _ *kernel.Call, in whom) (greeting, error) {
			return greeting{Greeting: "hello " + in.Name}, nil
		}); err != nil {
		return err
	}
	return h.Resource(kernel.Resource{
		URITemplate: "pact://projects/{project_id}/context/{key}", Name: "Project note", Title: "Project note",
		Description: "One note.", MIMEType: "application/json",
		Read: func(_ context.Context, agent, uri string, p map[string]string) (string, error) {
			switch p["key"] {
			case "secret":
				return "", errs.E(errs.NotFound, "note secret does not exist")
			case "broken":
				return "", errors.New("the notes' disk is on fire")
			}
			b, _ := json.Marshal(map[string]any{"agent": agent, "uri": uri, "params": p})
			return string(b), nil
		},
	})
}

// wait is test_wait's Wait phase. With no hub, its wait ends when its
// check finds ready or at its deadline.
func (m testModule) wait(_ context.Context, _ string, args json.RawMessage) (*events.Wait, error) {
	m.f.prepared.Add(1)
	var in struct {
		MS     int
		Refuse bool
	}
	_ = json.Unmarshal(args, &in)
	if in.Refuse {
		return nil, errs.E(errs.ScopeExceeded, "may not wait")
	}
	var none *events.Hub
	return none.NewWait(nil, time.Duration(in.MS)*time.Millisecond,
		func(context.Context) (bool, error) { return m.f.ready.Load(), nil },
		func(context.Context) error { m.f.ended.Add(1); return nil }), nil
}

func newFixture(t *testing.T) *fixture { return newFixtureParking(t, true) }

// newFixtureParking is newFixture with held calls parked (park.go) or
// waiting on their request's goroutine.
func newFixtureParking(t *testing.T, park bool) *fixture {
	t.Helper()
	return newFixtureWith(t, park)
}

// newFixtureWith is newFixtureParking with more modules registered after
// the test tools.
func newFixtureWith(t *testing.T, park bool, extra ...kernel.Module) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{logs: &logtest.Buffer{}, calls: make(chan blocked, 4)}
	logger := hclog.New(&hclog.LoggerOptions{Output: f.logs, Level: hclog.Debug})
	f.World = kerneltest.New(t, kerneltest.Options{Logger: logger, NoPark: !park,
		MCP: func(*kerneltest.World) mcpserve.Options { return mcpserve.Options{PublicURL: publicURL} }},
		append([]kernel.Module{testModule{f}}, extra...)...)
	f.Person("", "ana", identity.Owner)
	f.Project("ana", "web", false)
	f.revoked = f.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}}).Token
	// The first token revoked and a second issued, as people's token
	// operations do (seeded by the harness: core cannot import modules).
	f.RevokeTokens("code-web")
	f.live = f.IssueToken("code-web")
	f.other = f.Agent("ana", kerneltest.AgentInput{ID: "code-api", Client: "code", Projects: []string{"web"}}).Token
	// No service issues a token that has already expired: the row is
	// written as one would be found a second after its expiry.
	f.expired = "pact_expired-token-of-code-web"
	_, err := f.DB.ExecContext(ctx, `INSERT INTO agent_tokens (token_hash, agent_id, expires_at)
		VALUES (?, 'code-web', now() - interval '1 second')`, identity.HashToken(f.expired))
	require.NoError(t, err)
	f.since = int64(f.Count(`SELECT coalesce(max(id), 0) FROM entries`))
	return f
}

func (f *fixture) url(agent string) string { return f.URL + "/mcp/a/" + agent }

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
	req, err := http.NewRequest(http.MethodPost, f.URL+path, strings.NewReader(body))
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

// outcomes returns the log's (action, outcome) pairs for agent since the
// set-up, oldest first.
func (f *fixture) outcomes(t *testing.T, agent string) [][2]string {
	t.Helper()
	var rows []struct {
		Action  string `bun:"action"`
		Outcome string `bun:"outcome"`
	}
	require.NoError(t, f.DB.NewRaw(`SELECT action, outcome FROM entries WHERE agent_id = ? AND id > ? ORDER BY id`, agent, f.since).
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
