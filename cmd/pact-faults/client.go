package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentCreds is what registering an agent hands back.
type agentCreds struct {
	id, token, mandate string
}

// transportErr is the code a call that got no answer is counted under:
// the board died, refused the connection or cut the response.
const transportErr = "transport"

// callTimeout bounds every call, connecting included.
const callTimeout = 60 * time.Second

// withToken adds the agent's bearer token to every request.
type withToken struct{ token string }

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return http.DefaultTransport.RoundTrip(r)
}

// client is one agent's MCP connection to one board, as a real agent has:
// the official Go SDK over Streamable HTTP. After a failed exchange the
// session is dropped and the next call connects again, as an agent's
// client does when its board went away.
type client struct {
	agent agentCreds
	url   string

	mu sync.Mutex
	cs *mcp.ClientSession
}

func newClient(a agentCreds, boardURL string) *client {
	return &client{agent: a, url: boardURL}
}

func (c *client) session(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs != nil {
		return c.cs, nil
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "pact-faults-" + c.agent.id, Version: "1"}, nil)
	cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url + "/mcp/a/" + c.agent.id,
		HTTPClient: &http.Client{Transport: withToken{c.agent.token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, err
	}
	c.cs = cs
	return cs, nil
}

func (c *client) drop(cs *mcp.ClientSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs == cs {
		c.cs = nil
		go func() { _ = cs.Close() }()
	}
}

// call makes one tool call. code is "" for an answer, the refusal's error
// code, or transportErr when no answer came (then err says why).
func (c *client) call(ctx context.Context, tool string, args map[string]any) (out map[string]any, code string, err error) {
	// No call may hang a scenario: the longest one holds 30 s.
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	cs, err := c.session(ctx)
	if err != nil {
		return nil, transportErr, err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.drop(cs)
		return nil, transportErr, err
	}
	if len(res.Content) != 1 {
		return nil, "malformed", fmt.Errorf("%s answered %d contents", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return nil, "malformed", fmt.Errorf("%s answered %T", tool, res.Content[0])
	}
	if err := json.Unmarshal([]byte(text.Text), &out); err != nil {
		return nil, "malformed", fmt.Errorf("%s: %w: %s", tool, err, text.Text)
	}
	if res.IsError {
		code, _ = out["error"].(string)
		if code == "" {
			code = "unknown"
		}
		return out, code, fmt.Errorf("%s refused: %v", tool, out["message"])
	}
	return out, "", nil
}

// timed is call, recorded in st under tool.
func (c *client) timed(ctx context.Context, st *stats, tool string, args map[string]any) (map[string]any, string, error) {
	start := time.Now()
	out, code, err := c.call(ctx, tool, args)
	if ctx.Err() == nil { // a call the harness itself cancelled at the end is no figure
		st.record(tool, time.Since(start), code)
	}
	return out, code, err
}

func (c *client) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs != nil {
		_ = c.cs.Close()
		c.cs = nil
	}
}
