package mcpserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/sdk/errs"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func initBody(version string) string { return strings.Replace(initialize, "%s", version, 1) }

func TestAuthenticationFailuresAre401WithAChallenge(t *testing.T) {
	f := newFixture(t)
	meta := `Bearer resource_metadata="https://board.example/.well-known/oauth-protected-resource/mcp/a/code-web", scope="pact"`
	cases := []struct {
		name, header, message string
		presented             bool
	}{
		{"no header", "", "missing bearer token", false},
		{"another scheme", "Basic " + f.live, "missing bearer token", false},
		{"empty bearer", "Bearer ", "missing bearer token", false},
		{"unknown token", "Bearer pact_nobody", "invalid or expired agent token", true},
		{"not an agent token", "Bearer eyJhbGciOi.x.y", "invalid or expired agent token", true},
		{"another agent's token", "Bearer " + f.other, "invalid or expired agent token", true},
		{"expired token", "Bearer " + f.expired, "invalid or expired agent token", true},
		{"revoked token", "Bearer " + f.revoked, "invalid or expired agent token", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := f.post(t, "/mcp/a/code-web", c.header, initBody("2025-06-18"))
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			want := meta
			if c.presented {
				want += `, error="invalid_token"`
			}
			require.Equal(t, want, resp.Header.Get("WWW-Authenticate"))
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			require.JSONEq(t, `{"error":"unauthorized","message":"`+c.message+`"}`, body)
		})
	}
	require.Empty(t, f.outcomes(t, "code-web"))
}

func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	f := newFixture(t)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		resp, body := f.post(t, "/mcp/a/code-web", scheme+" "+f.live, initBody("2025-06-18"))
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
	}
	// The other agent's own token works on its own URL.
	resp, body := f.post(t, "/mcp/a/code-api/", "Bearer "+f.other, initBody("2025-06-18"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
}

func TestAnythingButAnAgentURLIs404(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/mcp", "/mcp/", "/mcp/a", "/mcp/a/", "/mcp/a/Code-Web", "/mcp/a/-web",
		"/mcp/a/code_web", "/mcp/a/code-web/extra", "/mcp/b/code-web", "/mcp/a/" + strings.Repeat("a", 64)} {
		resp, body := f.post(t, path, "Bearer "+f.live, initBody("2025-06-18"))
		require.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		require.JSONEq(t, `{"error":"not_found","message":"use /mcp/a/<agent-id>"}`, body, path)
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"code-web", "code-web/"} {
		resp, err := http.Get(f.URL + "/.well-known/oauth-protected-resource/mcp/a/" + path)
		require.NoError(t, err)
		var doc map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
		require.Equal(t, map[string]any{
			"resource":                 "https://board.example/mcp/a/code-web",
			"authorization_servers":    []any{},
			"scopes_supported":         []any{"pact"},
			"bearer_methods_supported": []any{"header"},
			"resource_name":            "PACT Board",
		}, doc)
	}

	req, _ := http.NewRequest(http.MethodOptions, f.URL+"/.well-known/oauth-protected-resource/mcp/a/code-web", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))

	resp, _ = f.post(t, "/.well-known/oauth-protected-resource/mcp/a/code-web", "", "{}")
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	resp, err = http.Get(f.URL + "/.well-known/oauth-protected-resource/mcp/a/Nope")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestLegacyInitializeOverRawHTTP(t *testing.T) {
	f := newFixture(t)
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			resp, body := f.post(t, "/mcp/a/code-web", "Bearer "+f.live, initBody(version))
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			var out struct {
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
					ServerInfo      struct{ Name, Title, Version string }
					Instructions    string
					Capabilities    map[string]any
				}
			}
			require.NoError(t, json.Unmarshal([]byte(body), &out), body)
			require.Equal(t, version, out.Result.ProtocolVersion)
			require.Equal(t, "pact-board", out.Result.ServerInfo.Name)
			require.NotEmpty(t, out.Result.Instructions)
			require.Contains(t, out.Result.Capabilities, "tools")
			require.Contains(t, out.Result.Capabilities, "resources")

			// Without a session, the next request stands alone.
			resp, body = f.post(t, "/mcp/a/code-web", "Bearer "+f.live,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_echo","arguments":{"x":7}}}`)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			require.Contains(t, body, `\"agent\":\"code-web\"`)
		})
	}
}

func TestGetIsNotServedStatelessly(t *testing.T) {
	f := newFixture(t)
	req, _ := http.NewRequest(http.MethodGet, f.url("code-web"), nil)
	req.Header.Set("Authorization", "Bearer "+f.live)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// refuseAll is an Authenticator that answers every token with err.
type refuseAll struct{ err error }

func (r refuseAll) Authenticate(context.Context, string, string) error { return r.err }

func TestAuthenticatorDecidesTheAnswer(t *testing.T) {
	cases := []struct {
		err    error
		status int
		body   string
	}{
		{errs.E(errs.Forbidden, "you are not the owner of agent code-web"), http.StatusForbidden,
			`{"error":"forbidden","message":"you are not the owner of agent code-web"}`},
		{errors.New("database down"), http.StatusInternalServerError,
			`{"error":"internal","message":"internal error; the board logged the details"}`},
	}
	for _, c := range cases {
		s := mcpserve.New(mcpserve.Options{Auth: refuseAll{c.err}, PublicURL: publicURL, Logger: hclog.NewNullLogger(),
			Tools: kernel.NewTools(nil, nil, nil), Resources: &kernel.Resources{}})
		mux := http.NewServeMux()
		for pattern, h := range s.Routes() {
			mux.Handle(pattern, h)
		}
		srv := httptest.NewServer(mux)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp/a/code-web", strings.NewReader(initBody("2025-06-18")))
		req.Header.Set("Authorization", "Bearer pact_x")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		require.Equal(t, c.status, resp.StatusCode)
		require.Empty(t, resp.Header.Get("WWW-Authenticate"))
		require.JSONEq(t, c.body, string(body))
	}
}
