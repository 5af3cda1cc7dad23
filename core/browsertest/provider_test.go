package browsertest_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
)

// callback is the client's redirect URI: a page saying the sign-in came
// back, so the browser has somewhere to land.
func callback(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`<!doctype html><html lang="en"><title>Back</title><main><h1>Signed in</h1></main></html>`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// jwtParts returns a compact JWS's header and claims, unverified: the
// board's test (cmd/pact-board) verifies them through auth-oidc.
func jwtParts(t *testing.T, token string) (header, claims map[string]any) {
	parts := strings.Split(token, ".")
	require.Len(t, parts, 3, "a JWT: %s", token)
	for i, out := range []*map[string]any{&header, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, out))
	}
	return header, claims
}

// A browser signs in through oidc-provider's form with the authorization
// code flow and PKCE; the access token is an RS256 JWT for the audience
// with the user's email and amr, and the refresh token gets another.
func TestProviderSignsInThroughTheBrowser(t *testing.T) {
	cb := callback(t)
	redirect := cb.URL + "/callback"
	ana := browsertest.User{Email: "ana@example.com", Password: "correct horse", AMR: []string{"pwd", "mfa"}}
	p := browsertest.StartProvider(t, browsertest.ProviderConfig{ClientID: "console", ClientSecret: "s3cret",
		RedirectURIs: []string{redirect}, Audience: "http://127.0.0.1:8787/admin", Users: []browsertest.User{ana}})
	require.True(t, strings.HasPrefix(p.Issuer, "http://127.0.0.1:"), p.Issuer)
	b := browsertest.Start(t)

	// A wrong password is refused on the form, which stays accessible.
	page := b.Page(390, 844)
	_, challenge := browsertest.PKCE()
	page.Goto(p.AuthorizeURL(redirect, "x", challenge))
	require.Empty(t, browsertest.Serious(page.Axe()), "the provider's sign-in form")
	page.Fill("Email", ana.Email)
	page.Fill("Password", "wrong")
	page.Click("button", "Sign in")
	page.ExpectText("Wrong email or password.")

	tok := p.SignIn(t, b.Page(1280, 800), ana, redirect)
	require.Equal(t, "Bearer", tok.TokenType)
	require.NotEmpty(t, tok.RefreshToken)
	require.NotEmpty(t, tok.IDToken)
	header, claims := jwtParts(t, tok.AccessToken)
	require.Equal(t, "RS256", header["alg"])
	require.Equal(t, p.Issuer, claims["iss"])
	require.Equal(t, "http://127.0.0.1:8787/admin", claims["aud"])
	require.Equal(t, ana.Email, claims["sub"])
	require.Equal(t, ana.Email, claims["email"])
	require.Equal(t, true, claims["email_verified"])
	require.Equal(t, []any{"pwd", "mfa"}, claims["amr"])

	again := p.Refresh(t, tok.RefreshToken)
	_, claims = jwtParts(t, again.AccessToken)
	require.Equal(t, "http://127.0.0.1:8787/admin", claims["aud"])
	require.Equal(t, []any{"pwd", "mfa"}, claims["amr"])
}

// A public client (a browser app) signs in with PKCE and no secret.
func TestProviderPublicClient(t *testing.T) {
	cb := callback(t)
	bob := browsertest.User{Email: "bob@example.com", Password: "pw", AMR: []string{"pwd"}}
	p := browsertest.StartProvider(t, browsertest.ProviderConfig{ClientID: "spa", RedirectURIs: []string{cb.URL + "/"},
		Audience: "https://board.example/admin", Users: []browsertest.User{bob}})
	page := browsertest.Start(t).Page(1280, 800)
	_, claims := jwtParts(t, p.SignIn(t, page, bob, cb.URL+"/").AccessToken)
	require.Equal(t, "https://board.example/admin", claims["aud"])
	require.Equal(t, []any{"pwd"}, claims["amr"])
}

// For an MCP client's sign-in: a client registers itself (RFC 7591), and a
// token asked for a resource (RFC 8707) carries that resource as aud and
// the resource scope; the default audience's tokens are as before.
func TestProviderRegistersClientsAndMintsForAResource(t *testing.T) {
	cb := callback(t)
	cy := browsertest.User{Email: "cy@example.com", Password: "pw", AMR: []string{"pwd"}}
	p := browsertest.StartProvider(t, browsertest.ProviderConfig{ClientID: "minter", RedirectURIs: []string{cb.URL + "/"},
		Audience: "https://board.example/admin", Users: []browsertest.User{cy}, Registration: true, ResourceScope: "pact"})
	require.True(t, strings.HasPrefix(p.RegistrationEndpoint, p.Issuer+"/"), p.RegistrationEndpoint)
	resp, err := http.Post(p.RegistrationEndpoint, "application/json", strings.NewReader(
		`{"redirect_uris":["`+cb.URL+`/"],"token_endpoint_auth_method":"none","scope":"pact"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	var registered map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&registered))
	require.Equal(t, http.StatusCreated, resp.StatusCode, "%v", registered)
	require.NotEmpty(t, registered["client_id"])
	require.Equal(t, "pact", registered["scope"])

	b := browsertest.Start(t)
	_, claims := jwtParts(t, p.SignInFor(t, b.Page(1280, 800), cy, cb.URL+"/", "https://board.example/mcp/a/chat-web").AccessToken)
	require.Equal(t, "https://board.example/mcp/a/chat-web", claims["aud"])
	require.Equal(t, "pact", claims["scope"])
	require.Equal(t, cy.Email, claims["email"])
	_, claims = jwtParts(t, p.SignIn(t, b.Page(1280, 800), cy, cb.URL+"/").AccessToken)
	require.Equal(t, "https://board.example/admin", claims["aud"])
}
