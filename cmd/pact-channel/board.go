package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusal is a tool call the board refused: an isError result whose text
// is {"error": code, "message": …} (docs/errors.md).
type refusal struct {
	Code    string `json:"error"`
	Message string `json:"message"`
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

// board is pact-channel's MCP session at <url>/mcp/a/<agent>, as
// cmd/pact-runner/client.go holds one: a call that fails for any reason
// but a refusal drops the session, and the next call opens a new one.
type board struct {
	endpoint string
	http     *http.Client

	mu      sync.Mutex
	session *mcp.ClientSession
}

// bearer adds the agent's token to each request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func newBoard(cfg *config, rt http.RoundTripper) *board {
	return &board{endpoint: cfg.URL + "/mcp/a/" + cfg.Agent, http: &http.Client{Transport: bearer{cfg.Token, rt}}}
}

func (b *board) open(ctx context.Context) (*mcp.ClientSession, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session != nil {
		return b.session, nil
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "pact-channel", Version: "1"}, nil)
	s, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: b.endpoint, HTTPClient: b.http, MaxRetries: -1,
		DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", b.endpoint, err)
	}
	b.session = s
	return s, nil
}

func (b *board) drop(s *mcp.ClientSession) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session == s {
		_ = s.Close()
		b.session = nil
	}
}

// Close ends the session.
func (b *board) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session != nil {
		_ = b.session.Close()
		b.session = nil
	}
}

// call runs tool with args and decodes its answer into out; a refusal is
// a *refusal.
func (b *board) call(ctx context.Context, tool string, args map[string]any, out any) error {
	s, err := b.open(ctx)
	if err != nil {
		return err
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.drop(s)
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

// rootMandate reads pact_whoami and returns the agent's first live root
// mandate (pact_whoami lists roots first).
func (b *board) rootMandate(ctx context.Context) (string, error) {
	var w struct {
		Mandates []struct {
			ID       string  `json:"id"`
			ParentID *string `json:"parent_id"`
		} `json:"mandates"`
	}
	if err := b.call(ctx, "pact_whoami", map[string]any{}, &w); err != nil {
		return "", err
	}
	for _, m := range w.Mandates {
		if m.ParentID == nil {
			return m.ID, nil
		}
	}
	return "", errors.New("pact_whoami lists no live root mandate: ask a person to renew the agent's mandate")
}

// isMandate says a refusal concerns the mandate itself: read pact_whoami
// again for a live one.
func isMandate(code string) bool { return strings.HasPrefix(code, "mandate_") }
