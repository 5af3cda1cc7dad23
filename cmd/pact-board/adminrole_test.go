package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// TestAdminRoleServesThePeopleRoutesAndNotMCP: PACT_ROLE=admin serves the
// Admin API (the people module's routes, sign-up included) and refuses the
// MCP side, so the kill switch works while the MCP side is down.
func TestAdminRoleServesThePeopleRoutesAndNotMCP(t *testing.T) {
	base, _, _ := startBoard(t, map[string]string{"PACT_ROLE": "admin"})
	for _, path := range []string{"/admin/api/me", "/admin/api/humans", "/admin/api/approval-rules"} {
		resp, body := get(t, base+path)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s is served and gated: %v", path, body)
		require.Equal(t, "unauthorized", body["error"])
	}
	status, body := post(t, base+"/admin/api/signup", `{"org_name": "X"}`)
	require.Equal(t, http.StatusUnauthorized, status, "sign-up is served and checks the token itself: %v", body)
	status, body = post(t, base+"/admin/api/kill-switch", `{"halted": true}`)
	require.Equal(t, http.StatusUnauthorized, status, "%v", body)
	resp, _ := get(t, base+"/admin/api/openapi.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)

	for _, path := range []string{"/mcp", "/mcp/a/code-web"} {
		status, body := post(t, base+path, `{"jsonrpc": "2.0", "id": 1, "method": "initialize"}`)
		require.Equal(t, http.StatusNotFound, status, path)
		require.Equal(t, "this service serves /admin/api only", body["message"])
	}
	status, _ = post(t, base+"/connect", `{"code": "pcs_x"}`)
	require.Equal(t, http.StatusNotFound, status, "setup codes are redeemed on the board")
}
