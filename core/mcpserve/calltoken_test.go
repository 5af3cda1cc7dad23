package mcpserve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// rpcBody is one stateless 2026-07-28 JSON-RPC request of method.
func rpcBody(method string, params map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "raw", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	return string(b)
}

// TestEveryPathAnswersARefusedTokenAlike: wherever a request's token is
// checked, before the SDK sees it or inside the tools/call it makes (in
// the gate's statement: calltoken.go), a token that is not a live token of
// the URL's agent gets the same 401, challenge and message, and leaves
// nothing in the log. The paths are every branch serveMCP and Tools.Call
// take a request down: a call checked in its gate, one the SDK refuses
// on its own (its Mcp-Name header names another tool), a call of a tool with
// a Wait phase, a number refused before the gate, a tool that does not
// exist, a method other than tools/call, and a body peek and the SDK
// could read differently (a repeated "method"), both ways round (both read
// the last today; checkUnchecked's test covers a reading that differs).
// ID-006.
func TestEveryPathAnswersARefusedTokenAlike(t *testing.T) {
	f := newFixture(t)
	call := func(tool string, args any) string {
		return rpcBody("tools/call", map[string]any{"name": tool, "arguments": args})
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	twoWays := func(first, last string) string { // encoding/json keeps the last of a repeated key
		return `{"jsonrpc":"2.0","id":7,"method":"` + first + `","params":{"name":"test_echo","arguments":{"x":1},` +
			meta + `},"method":"` + last + `"}`
	}
	echo := call("test_echo", map[string]any{"x": 1})
	paths := []struct {
		name, body string
		header     map[string]string // beside postRPC's
		live       int               // the live token's status
	}{
		{"a call checked in its gate", echo, nil, http.StatusOK},
		{"a call the SDK refuses on its own", echo, map[string]string{"Mcp-Name": "test_greet"}, http.StatusBadRequest},
		{"a call of a tool that waits", call("test_wait", map[string]any{"ms": 10}), nil, http.StatusOK},
		{"a number refused before a gate", strings.Replace(echo, `"x":1`, `"x":9007199254740993`, 1), nil, http.StatusOK},
		{"a tool that does not exist", call("test_nothing", map[string]any{}), nil, http.StatusBadRequest},
		{"tools/list", rpcBody("tools/list", nil), nil, http.StatusOK},
		{"read as tools/list, then call", twoWays("tools/list", "tools/call"), nil, http.StatusOK},
		{"read as tools/call, then list", twoWays("tools/call", "tools/list"), nil, http.StatusOK},
	}
	tokens := map[string]string{"unknown": "pact_nobody", "another agent's": f.other, "expired": f.expired,
		"revoked": f.revoked, "not an agent token": "eyJhbGciOi.x.y", "a per-run credential's": "pact_run_nothing"}
	want := `Bearer resource_metadata="https://board.example/.well-known/oauth-protected-resource/mcp/a/code-web", scope="pact", error="invalid_token"`
	for _, p := range paths {
		for name, token := range tokens {
			resp, got := f.postRPC(t, p.body, "Bearer "+token, p.header)
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s, %s token: %s", p.name, name, got)
			require.Equal(t, want, resp.Header.Get("WWW-Authenticate"), "%s, %s token", p.name, name)
			message := "invalid or expired agent token"
			if name == "a per-run credential's" {
				message = "this board issues no per-run credentials"
			}
			require.JSONEq(t, `{"error":"unauthorized","message":"`+message+`"}`, got, "%s, %s token", p.name, name)
		}
	}
	require.Empty(t, f.outcomes(t, "code-web"), "no refused token left an entry")
	require.Empty(t, f.outcomes(t, "code-api"), "no refused token left an entry")
	for _, p := range paths {
		resp, got := f.postRPC(t, p.body, "Bearer "+f.live, p.header)
		require.Equal(t, p.live, resp.StatusCode, "%s, the live token: %s", p.name, got)
	}
}

// postRPC posts body to code-web's URL as a 2026-07-28 client would.
func (f *fixture) postRPC(t *testing.T, body, auth string, header map[string]string) (*http.Response, string) {
	t.Helper()
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(body), &msg)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, f.url("code-web"), strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range map[string]string{"Authorization": auth, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": msg.Method, "Mcp-Name": msg.Params.Name} {
		req.Header.Set(k, v)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}
