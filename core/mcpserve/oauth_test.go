package mcpserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

type oauthBearer struct{ token string }

func (b oauthBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// A person signed in through the board's issuer may use the Claude-app
// agents they own, at their URL; nobody else, and no token-holding agent.
func TestOAuthSignInActsAsTheAgentsOwner(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	log := ledger.New(nil)
	ms := mandate.NewService(keys, nil)
	ident := identity.NewService(d, log, ms, nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	_, err = ident.AddHuman(ctx, "ana", identity.HumanInput{ID: "val", Name: "Val", Role: identity.Approver, Email: "val@example.com"})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	for _, a := range []struct{ id, client string }{{"chat-web", "chat"}, {"code-web", "code"}} {
		_, err = ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: a.id, Client: a.client, Projects: []string{"web"}})
		require.NoError(t, err)
	}
	iss := authtest.New(t)
	k := kernel.New(kernel.Deps{DB: d, Log: log, Mandates: ms, Identity: ident})
	srv := httptest.NewUnstartedServer(nil)
	public := "http://" + srv.Listener.Addr().String()
	o := mcpserve.OAuth{Tokens: mcpserve.AgentTokens{Identity: ident, DB: d}, Issuer: plugintest.Issuer(t, iss),
		Identity: ident, DB: d, PublicURL: public}
	require.NoError(t, k.Register(mcpserve.New(mcpserve.Options{Resources: k.Resources(), PublicURL: public, Auth: o,
		AuthorizationServers: []string{iss.URL}})))
	srv.Config.Handler = k.Handler()
	srv.Start()
	defer srv.Close()

	token := func(sub, email string, aud ...string) string {
		return iss.Token(t, authtest.Claims{Subject: sub, Email: email, EmailVerified: true, Audience: aud})
	}
	ana := token("sub-ana", "ana@example.com", public+"/mcp/a/chat-web")

	c := mcp.NewClient(&mcp.Implementation{Name: "claude-app", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: public + "/mcp/a/chat-web",
		HTTPClient: &http.Client{Transport: oauthBearer{ana}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err, "the owner signs in to her chat agent")
	require.NoError(t, cs.Close())

	check := func(agent, tok string) errs.Code { return errs.CodeOf(o.Authenticate(ctx, agent, tok)) }
	require.Equal(t, errs.Forbidden, check("chat-web", token("sub-val", "val@example.com", public+"/mcp/a/chat-web")), "not the owner")
	require.Equal(t, errs.Forbidden, check("ghost", token("sub-ana", "", public+"/mcp/a/ghost")), "a missing agent answers like a foreign one")
	require.Equal(t, errs.Forbidden, check("code-web", token("sub-ana", "", public+"/mcp/a/code-web")), "token agents do not sign in")
	require.Equal(t, errs.Unauthorized, check("chat-web", token("sub-ana", "", "https://elsewhere")), "wrong audience")
	require.Equal(t, errs.Unauthorized, check("chat-web", token("sub-eve", "eve@example.com", public)), "not a registered person")

	resp, err := http.Get(public + "/.well-known/oauth-protected-resource/mcp/a/chat-web")
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
