package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusal is a tool call the board refused: an isError result whose text
// is {"error": code, "message": …} (docs/errors.md).
type refusal struct {
	Code      string `json:"error"`
	Message   string `json:"message"`
	MandateID string `json:"mandate_id,omitempty"`
}

func (r *refusal) Error() string { return r.Code + ": " + r.Message }

// codeOf is err's refusal code, or "" for any other error.
func codeOf(err error) string {
	var r *refusal
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// client is the runner's MCP session at <url>/mcp/a/<agent> with its
// token; a call that fails for any reason but a refusal drops the session,
// and the next call opens a new one.
type client struct {
	endpoint, token string

	mu      sync.Mutex
	session *mcp.ClientSession
}

func newClient(url, agent, token string) *client {
	return &client{endpoint: url + "/mcp/a/" + agent, token: token}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func (c *client) open(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return c.session, nil
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "pact-runner", Version: "1"}, nil)
	s, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.endpoint,
		HTTPClient: &http.Client{Transport: bearer{c.token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", c.endpoint, err)
	}
	c.session = s
	return s, nil
}

func (c *client) drop(s *mcp.ClientSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == s {
		_ = s.Close()
		c.session = nil
	}
}

// Close ends the session.
func (c *client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		_ = c.session.Close()
		c.session = nil
	}
}

// call runs tool with args and decodes its answer into out; a refusal is
// a *refusal.
func (c *client) call(ctx context.Context, tool string, args map[string]any, out any) error {
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.drop(s)
		return fmt.Errorf("%s: %w", tool, err)
	}
	if len(res.Content) == 0 {
		return fmt.Errorf("%s: an empty answer", tool)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Errorf("%s: an answer that is not text", tool)
	}
	if res.IsError {
		r := &refusal{}
		if err := json.Unmarshal([]byte(text.Text), r); err != nil || r.Code == "" {
			return fmt.Errorf("%s: %s", tool, text.Text)
		}
		return r
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(text.Text), out); err != nil {
		return fmt.Errorf("%s: decode the answer: %w", tool, err)
	}
	return nil
}
