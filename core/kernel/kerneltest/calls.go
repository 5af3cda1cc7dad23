package kerneltest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

func (w *World) serve() {
	srv := httptest.NewUnstartedServer(w.Kernel.Handler())
	if w.conns != nil {
		srv.Listener = w.conns.Wrap(srv.Listener)
		// The test server does not know the parked calls: at the end they
		// are answered (the drain ends their waits) before the database
		// closes.
		w.T.Cleanup(func() {
			w.Kernel.Drain()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := w.mcp.WaitParked(ctx); err != nil {
				w.T.Errorf("parked calls still unanswered 10 s after the test: %v", err)
			}
		})
	}
	srv.Start()
	w.T.Cleanup(srv.Close)
	w.server, w.URL = srv, srv.URL
}

// Reply is an Admin API answer: its status, headers, raw body and the body
// decoded as a JSON object (nil when it is not one).
type Reply struct {
	Status int
	Header http.Header
	Raw    string
	Body   map[string]any
}

// AdminToken is an access token for person id, as the issuer mints one for
// the account sub-<id> with the verified email <id>@example.com (the
// emails People gives): the Admin API signs it in to that person.
func (w *World) AdminToken(id string) string {
	return w.Issuer.Token(w.T, authtest.Claims{Subject: "sub-" + id, Email: id + "@example.com", EmailVerified: true,
		Audience: []string{w.Config.AdminAudience}})
}

// Admin sends body (JSON text, "" for none) to the Admin API path (under
// /admin/api) as person as ("" sends no token).
func (w *World) Admin(as, method, path, body string) Reply {
	w.T.Helper()
	token := ""
	if as != "" {
		token = w.AdminToken(as)
	}
	return w.AdminWith(token, method, path, body)
}

// AdminWith is Admin with a bearer token of the caller's choosing.
func (w *World) AdminWith(token, method, path, body string) Reply {
	w.T.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, w.URL+"/admin/api"+path, r)
	require.NoError(w.T, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(w.T, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(w.T, err)
	out := Reply{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Session is agent's MCP client session at /mcp/a/<agent> with its token,
// opened on first use and closed at the test's end.
func (w *World) Session(agent string) *mcp.ClientSession {
	w.T.Helper()
	w.mu.Lock()
	cs, ok := w.sessions[agent]
	w.mu.Unlock()
	if ok {
		return cs
	}
	cs, err := w.Connect(agent)
	require.NoError(w.T, err)
	w.mu.Lock()
	defer w.mu.Unlock()
	if prev, ok := w.sessions[agent]; ok { // another goroutine got there first
		_ = cs.Close()
		return prev
	}
	w.sessions[agent] = cs
	return cs
}

// Connect opens a new MCP client session as agent with its current token.
func (w *World) Connect(agent string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "kerneltest-" + agent, Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: w.URL + "/mcp/a/" + agent,
		HTTPClient: &http.Client{Transport: bearer{w.Token(agent)}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, err
	}
	w.T.Cleanup(func() { _ = cs.Close() })
	return cs, nil
}

// Call runs tool as agent over MCP and returns its result as decoded JSON,
// or its refusal as an *errs.Error rebuilt from the isError result. A
// result must match the tool's output schema (checkOutput).
func (w *World) Call(agent, tool string, args map[string]any) (map[string]any, error) {
	res, err := w.Session(agent).CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	require.NotEmpty(w.T, res.Content)
	text := res.Content[0].(*mcp.TextContent).Text
	var out map[string]any
	require.NoError(w.T, json.Unmarshal([]byte(text), &out), text)
	if res.IsError {
		e := &errs.Error{Code: errs.Code(out["error"].(string)), Message: out["message"].(string)}
		if id, ok := out["mandate_id"].(string); ok {
			e.MandateID = id
		}
		return nil, e
	}
	w.checkOutput(agent, tool, res, text)
	return out, nil
}

// OK runs tool as agent and fails the test on a refusal.
func (w *World) OK(agent, tool string, args map[string]any) map[string]any {
	w.T.Helper()
	out, err := w.Call(agent, tool, args)
	require.NoError(w.T, err, "%s %s", agent, tool)
	return out
}

// Refused runs tool as agent and fails the test unless it is refused with code.
func (w *World) Refused(code errs.Code, agent, tool string, args map[string]any) *errs.Error {
	w.T.Helper()
	_, err := w.Call(agent, tool, args)
	require.Equal(w.T, code, errs.CodeOf(err), "%s %s: %v", agent, tool, err)
	e, _ := errs.As(err)
	return e
}

// Count runs a counting query against the database.
func (w *World) Count(q string, args ...any) int {
	w.T.Helper()
	var n int
	require.NoError(w.T, w.DB.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

// VerifyLog checks every chain of the database.
func (w *World) VerifyLog() {
	w.T.Helper()
	vs, err := ledger.New(nil).VerifyAll(context.Background(), w.DB, nil)
	require.NoError(w.T, err)
	for _, chains := range vs {
		for _, v := range chains {
			require.True(w.T, v.OK, "%s: %s", v.ChainKey, v.Reason)
		}
	}
}
