package mcpserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

type oauthBearer struct{ token string }

func (b oauthBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// A person signed in through the board's issuer may use the agents they
// own, at their URL, whatever their client; nobody else may.
func TestOAuthSignInActsAsTheAgentsOwner(t *testing.T) {
	ctx := context.Background()
	const public = "http://board.test"
	var o mcpserve.OAuth
	w := kerneltest.New(t, kerneltest.Options{MCP: func(w *kerneltest.World) mcpserve.Options {
		o = mcpserve.OAuth{Tokens: mcpserve.AgentTokens{Identity: w.Identity, DB: w.DB}, Issuer: plugintest.Issuer(t, w.Issuer),
			Identity: w.Identity, DB: w.DB, PublicURL: public}
		return mcpserve.Options{PublicURL: public, Auth: o, AuthorizationServers: []string{w.Issuer.URL}}
	}})
	w.Person("", "ana", identity.Owner)
	w.Person("ana", "val", identity.Approver)
	w.Project("ana", "web", false)
	for _, client := range identity.Clients() {
		w.Agent("ana", kerneltest.AgentInput{ID: client + "-web", Client: client, Projects: []string{"web"}})
	}
	iss := w.Issuer

	token := func(sub, email string, aud ...string) string {
		return iss.Token(t, authtest.Claims{Subject: sub, Email: email, EmailVerified: true, Audience: aud})
	}
	ana := token("sub-ana", "ana@example.com", public+"/mcp/a/chat-web")

	c := mcp.NewClient(&mcp.Implementation{Name: "claude-app", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: w.URL + "/mcp/a/chat-web",
		HTTPClient: &http.Client{Transport: oauthBearer{ana}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err, "the owner signs in to her chat agent")
	require.NoError(t, cs.Close())

	check := func(agent, tok string) errs.Code { return errs.CodeOf(o.Authenticate(ctx, agent, tok)) }
	require.Equal(t, errs.Forbidden, check("chat-web", token("sub-val", "val@example.com", public+"/mcp/a/chat-web")), "not the owner")
	require.Equal(t, errs.Forbidden, check("ghost", token("sub-ana", "", public+"/mcp/a/ghost")), "a missing agent answers like a foreign one")
	for _, client := range identity.Clients() {
		// Every client, not only the Claude apps (docs/specs/divergences.md, audit item 3).
		require.NoError(t, o.Authenticate(ctx, client+"-web", token("sub-ana", "", public+"/mcp/a/"+client+"-web")), client)
		require.Equal(t, errs.Forbidden, check(client+"-web", token("sub-val", "", public+"/mcp/a/"+client+"-web")), "not the owner")
	}
	require.Equal(t, errs.Unauthorized, check("chat-web", token("sub-ana", "", "https://elsewhere")), "wrong audience")
	require.Equal(t, errs.Unauthorized, check("chat-web", token("sub-eve", "eve@example.com", public)), "not a registered person")
	scoped := func(scope string) string {
		return iss.Token(t, authtest.Claims{Subject: "sub-ana", Audience: []string{public}, Scope: scope})
	}
	require.Equal(t, errs.Unauthorized, check("chat-web", scoped("openid email")), "a token whose scope leaves out pact")
	require.NoError(t, o.Authenticate(ctx, "chat-web", scoped("openid pact")))
	wrongAud := o.Authenticate(ctx, "chat-web", token("sub-ana", "", "https://elsewhere"))
	require.NotContains(t, errs.Public(wrongAud).Message, "elsewhere", "the refusal does not echo the issuer's reason")
	require.NotContains(t, errs.Public(wrongAud).Message, public)

	resp, err := http.Get(w.URL + "/.well-known/oauth-protected-resource/mcp/a/chat-web")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var doc struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	require.NoError(t, jsonDecode(resp, &doc))
	require.Equal(t, []string{iss.URL}, doc.AuthorizationServers, "the RFC 9728 document names the issuer")
}

func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
