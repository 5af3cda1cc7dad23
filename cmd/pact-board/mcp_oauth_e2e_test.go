package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/npmtest"
)

// The hosted-app sign-in, end to end (issue #35; docs/security.md, §12),
// with parts nobody here wrote on both sides of the board: the official
// MCP TypeScript SDK's OAuth client (testdata/mcpoauth, pinned as
// cmd/pact-channel's is) is given nothing but an agent's URL, and
// oidc-provider (core/browsertest) with dynamic client registration and
// resource indicators signs its person in through a form in headless
// Chromium. The board runs as pact-board does, with the real auth-oidc
// plugin binary, listening at its PACT_PUBLIC_URL: the SDK checks the RFC
// 9728 document's resource against the URL it connected to.
//
// The SDK gets the board's 401, reads the RFC 9728 document it names, the
// issuer's metadata, registers itself, and runs the authorization code flow
// with PKCE and `resource`; with the token it got, pact_whoami answers as
// the agent its owner signed in to. The token's audience is that agent's
// URL, so another agent of the same owner refuses it; a token minted for
// another resource is refused with 401, while one minted the same way for
// the agent's URL, or the board's, is served; and a token for the board's
// URL, or for another person's agent's, gets 403 at that agent (SEC-026).
func TestMCPOAuthSignInWithTheTypeScriptSDK(t *testing.T) {
	t.Parallel() // waits on a browser, as the console's journeys do (docs/console-testing.md)
	ctx := context.Background()
	landing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><html lang="en"><title>Back</title><main><h1>Signed in</h1></main></html>`)
	}))
	t.Cleanup(landing.Close)
	redirect := landing.URL + "/callback"
	// MCP asks for no second factor (docs/security.md): amr without mfa.
	ola := browsertest.User{Email: "ola@example.com", Password: "ola's password", AMR: []string{"pwd"}}

	// The board listens where its public URL says.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	public := fmt.Sprintf("http://127.0.0.1:%d", port)
	agentURL := public + "/mcp/a/chat-web"

	// minter is a client of the test's own, to mint tokens for any resource.
	op := browsertest.StartProvider(t, browsertest.ProviderConfig{ClientID: "minter", RedirectURIs: []string{redirect},
		Audience: public + "/admin", Users: []browsertest.User{ola}, Registration: true, ResourceScope: "pact"})
	require.NotEmpty(t, op.RegistrationEndpoint)
	vars := oidcBoardVars(t, op.Issuer)
	for k, v := range map[string]string{"PORT": fmt.Sprint(port), "PACT_PUBLIC_URL": public, "PACT_AUTH_ISSUER": op.Issuer} {
		vars[k] = v
	}
	_, logs, _ := startBoard(t, vars)

	d, err := db.Open(ctx, vars["DATABASE_URL"])
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ola", Name: "Ola Owner", Role: identity.Owner, Email: ola.Email})
	require.NoError(t, err)
	// The invitation accepted for the provider's account (its sub is the email).
	p, err := ident.AcceptInvitation(ctx, d, "ola", ola.Email, op.Issuer, ola.Email)
	require.NoError(t, err)
	require.NotNil(t, p)
	_, err = ident.AddProject(ctx, "ola", "web", "Web", false)
	require.NoError(t, err)
	_, err = ident.AddHuman(ctx, "ola", identity.HumanInput{ID: "pam", Name: "Pam", Role: identity.Approver})
	require.NoError(t, err)
	for _, a := range []struct{ id, client, owner string }{{"chat-web", "chat", "ola"}, {"code-web", "code", "ola"}, {"chat-pam", "chat", "pam"}} {
		_, err := registerAgent(ctx, d, ident, "ola", people.AgentInput{ID: a.id, Client: a.client, Projects: []string{"web"}, Owner: a.owner})
		require.NoError(t, err)
	}

	sdk := startOAuthClient(t, agentURL, redirect)
	authorize, err := url.Parse(sdk.next(logs)["authorize"].(string))
	require.NoError(t, err)
	q := authorize.Query()
	require.Equal(t, op.AuthorizationEndpoint, strings.Split(authorize.String(), "?")[0])
	require.Equal(t, agentURL, q.Get("resource"), "the RFC 9728 document's resource (RFC 8707)")
	require.Equal(t, "pact", q.Get("scope"), "the scope the board's challenge names")
	require.Equal(t, "S256", q.Get("code_challenge_method"))
	require.NotEmpty(t, q.Get("code_challenge"))
	require.Equal(t, redirect, q.Get("redirect_uri"))
	require.NotContains(t, []string{"", "minter"}, q.Get("client_id"), "a client registered just now")

	browser := browsertest.Start(t)
	page := browser.Page(1280, 800)
	page.Goto(authorize.String())
	page.Fill("Email", ola.Email)
	page.Fill("Password", ola.Password)
	page.Click("button", "Sign in")
	back, err := url.Parse(page.WaitURL(redirect))
	require.NoError(t, err)
	require.Equal(t, q.Get("state"), back.Query().Get("state"))
	require.NotEmpty(t, back.Query().Get("code"), back.String())
	sdk.send(back.Query().Get("code"))

	out := sdk.next(logs)
	require.NoError(t, sdk.wait(), sdk.stderr.String())
	agent := out["whoami"].(map[string]any)["agent"].(map[string]any)
	require.Equal(t, "chat-web", agent["id"])
	require.Equal(t, "ola", agent["owner"])
	requireRequestsInOrder(t, out["requests"], []string{
		"POST " + agentURL + " 401",
		"GET " + public + "/.well-known/oauth-protected-resource/mcp/a/chat-web 200",
		"GET " + op.Issuer + "/.well-known/openid-configuration 200",
		"POST " + op.RegistrationEndpoint + " 201",
		"POST " + op.TokenEndpoint + " 200",
		"POST " + agentURL + " 200",
	})
	sdkToken := out["accessToken"].(string)
	claims := jwtClaims(t, sdkToken)
	require.Equal(t, agentURL, claims["aud"])
	require.Equal(t, "pact", claims["scope"])
	require.Equal(t, op.Issuer, claims["iss"])

	// The token is for chat-web's URL: code-web, also Ola's, refuses it.
	status, challenge, body := mcpInitialize(t, public+"/mcp/a/code-web", sdkToken)
	require.Equal(t, http.StatusUnauthorized, status, body)
	require.Contains(t, challenge, `resource_metadata="`+public+`/.well-known/oauth-protected-resource/mcp/a/code-web"`)

	// A token minted for another resource is refused; the same minting for
	// the agent's URL or the board's is served, so the resource alone decides.
	elsewhere := op.SignInFor(t, browser.Page(1280, 800), ola, redirect, "http://elsewhere.example/mcp")
	require.Equal(t, "http://elsewhere.example/mcp", jwtClaims(t, elsewhere.AccessToken)["aud"])
	status, challenge, body = mcpInitialize(t, agentURL, elsewhere.AccessToken)
	require.Equal(t, http.StatusUnauthorized, status, body)
	require.Contains(t, challenge, `resource_metadata="`+public+`/.well-known/oauth-protected-resource/mcp/a/chat-web"`)
	require.NotContains(t, body, "elsewhere", "the refusal does not echo the issuer's reason (SEC-012)")
	var boardToken string
	for _, resource := range []string{agentURL, public} {
		tok := op.SignInFor(t, browser.Page(1280, 800), ola, redirect, resource)
		require.Equal(t, resource, jwtClaims(t, tok.AccessToken)["aud"])
		who := connect(t, public, "chat-web", tok.AccessToken).ok("pact_whoami", nil)
		require.Equal(t, "chat-web", who["agent"].(map[string]any)["id"], "a token for %s", resource)
		boardToken = tok.AccessToken
	}

	// With a token for the board's URL, or for the URL of Pam's agent
	// itself, Ola still acts only as her own agents: Pam's answers 403.
	pams := op.SignInFor(t, browser.Page(1280, 800), ola, redirect, public+"/mcp/a/chat-pam")
	for _, tok := range []string{boardToken, pams.AccessToken} {
		status, _, body = mcpInitialize(t, public+"/mcp/a/chat-pam", tok)
		require.Equal(t, http.StatusForbidden, status, body)
		require.Contains(t, body, "you are not the owner of agent chat-pam")
	}
}

// oauthClient is testdata/mcpoauth/client.mjs running: one JSON line out
// per step, the authorization code in.
type oauthClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *logtest.Buffer
}

func startOAuthClient(t *testing.T, agentURL, redirect string) *oauthClient {
	t.Helper()
	dir := installNodePackage(t, filepath.Join("testdata", "mcpoauth"), "pact-mcp-oauth-client",
		filepath.Join("@modelcontextprotocol", "sdk", "package.json"))
	body, err := os.ReadFile(filepath.Join("testdata", "mcpoauth", "client.mjs"))
	require.NoError(t, err)
	script := npmtest.WriteScript(t, dir, "client", body)
	conf, err := json.Marshal(map[string]string{"url": agentURL, "redirectUrl": redirect})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "client.json")
	require.NoError(t, os.WriteFile(file, conf, 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	c := &oauthClient{t: t, cmd: exec.CommandContext(ctx, "node", script, file), lines: make(chan string, 4), stderr: &logtest.Buffer{}}
	c.cmd.Dir, c.cmd.Stderr = dir, c.stderr
	c.stdin, err = c.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := c.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.cmd.Start())
	go sendLines(stdout, c.lines)
	t.Cleanup(func() { _ = c.stdin.Close(); cancel(); _ = c.cmd.Wait() })
	return c
}

// next is the client's next line; it fails the test, with the client's
// stderr and the board's log, when the client ends or says nothing for a
// minute.
func (c *oauthClient) next(logs *logtest.Buffer) map[string]any {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the MCP client ended early:\n%s\nboard log:\n%s", c.stderr, logs)
		}
		var out map[string]any
		require.NoError(c.t, json.Unmarshal([]byte(line), &out), line)
		return out
	case <-time.After(time.Minute):
		c.t.Fatalf("the MCP client said nothing for a minute:\n%s\nboard log:\n%s", c.stderr, logs)
	}
	return nil
}

func (c *oauthClient) send(line string) {
	c.t.Helper()
	_, err := io.WriteString(c.stdin, line+"\n")
	require.NoError(c.t, err)
}

func (c *oauthClient) wait() error {
	for range c.lines { // drain, so the reader ends and Wait may close the pipe
	}
	return c.cmd.Wait()
}

// requireRequestsInOrder checks that the client's requests ("METHOD URL
// STATUS") hold want, in that order, with any others between.
func requireRequestsInOrder(t *testing.T, requests any, want []string) {
	t.Helper()
	var seen []string
	for _, r := range requests.([]any) {
		m := r.(map[string]any)
		seen = append(seen, fmt.Sprintf("%s %s %v", m["method"], m["url"], m["status"]))
	}
	t.Logf("the SDK's requests:\n%s", strings.Join(seen, "\n"))
	i := 0
	for _, s := range seen {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	require.Equal(t, len(want), i, "the SDK's requests lack %q in order:\n%s", want[min(i, len(want)-1)], strings.Join(seen, "\n"))
}

// jwtClaims reads a JWT's claims, unverified: the board verifies them
// through auth-oidc.
func jwtClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	require.Len(t, parts, 3, "a JWT: %s", token)
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(raw, &claims))
	return claims
}

// mcpInitialize sends an MCP initialize request with token as the bearer
// and returns the status, the WWW-Authenticate challenge and the body.
func mcpInitialize(t *testing.T, u, token string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize",`+
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(body)
}
