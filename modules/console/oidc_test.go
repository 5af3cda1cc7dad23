package console_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/modules/console"
)

// signIn runs the browser through the OIDC sign-in for next and returns
// the login's query parameters (as the issuer got them) and the callback's answer.
func signIn(t *testing.T, b *board, br *browser, next string) (url.Values, reply) {
	login := br.get(b.URL + "/console/auth/login?next=" + url.QueryEscape(next))
	require.Equal(t, http.StatusFound, login.Status, login.Body)
	to, err := url.Parse(login.Header.Get("Location"))
	require.NoError(t, err)
	q := to.Query()
	authz := br.get(to.String())
	require.Equal(t, http.StatusFound, authz.Status, authz.Body)
	back, err := url.Parse(authz.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "/console/auth/callback", back.Path)
	// The issuer sends the browser to the board's public URL; the test
	// board listens elsewhere.
	return q, br.get(b.URL + back.Path + "?" + back.RawQuery)
}

func oidcBoard(t *testing.T) (*board, *authtest.Server) { return oidcBoardWith(t, boardOptions{}) }

// oidcBoardWith is oidcBoard shaped by o (its env is the issuer's).
func oidcBoardWith(t *testing.T, o boardOptions) (*board, *authtest.Server) {
	srv, env := issuerServer(t)
	o.env = env
	b := newBoardWith(t, o)
	srv.Issuer, srv.Subject, srv.Email = b.Issuer, "sub-ann", "ann@example.com"
	b.Org("acme", "ann")
	return b, srv
}

// Login sends the browser to the issuer with PKCE S256, state, nonce,
// the scopes and the Admin API as resource; the callback exchanges the
// code and sets the session, and no token reaches the browser.
func TestOIDCSignIn(t *testing.T) {
	b, srv := oidcBoard(t)
	br := newBrowser(t)
	q, done := signIn(t, b, br, "/console/tasks/42?tab=log")
	require.Equal(t, "code", q.Get("response_type"))
	require.Equal(t, "console", q.Get("client_id"))
	require.Equal(t, "S256", q.Get("code_challenge_method"))
	require.Len(t, q.Get("code_challenge"), 43)
	require.NotEmpty(t, q.Get("state"))
	require.NotEmpty(t, q.Get("nonce"))
	require.Equal(t, "openid email offline_access", q.Get("scope"))
	require.Equal(t, b.Config.AdminAudience, q.Get("resource"))
	require.Equal(t, b.Config.PublicURL+"/console/auth/callback", q.Get("redirect_uri"))

	require.Equal(t, http.StatusFound, done.Status, done.Body)
	require.Equal(t, "/console/tasks/42?tab=log", done.Header.Get("Location"))
	require.Contains(t, strings.Join(done.Header.Values("Set-Cookie"), "\n"), "SameSite=Strict")
	sessionCookieIsHidden(t, done.Header)

	me := br.get(b.URL + "/admin/api/probe")
	require.Equal(t, http.StatusOK, me.Status, me.Body)
	require.Contains(t, me.Body, `"id":"ann"`)
	require.Equal(t, http.StatusOK, br.get(b.URL+"/console/session").Status)
	br.noTokens(srv.Minted())
}

// sessionCookieIsHidden checks the session cookie of h's Set-Cookie:
// sealed, HttpOnly (no script of the page reads it) and SameSite=Strict.
func sessionCookieIsHidden(t *testing.T, h http.Header) {
	t.Helper()
	var found bool
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name != console.CookieName {
			continue
		}
		found = true
		require.True(t, strings.HasPrefix(c.Value, "sealed:v1:"), c.Value)
		require.True(t, c.HttpOnly, "the session cookie must be HttpOnly")
		require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	}
	require.True(t, found, "no %s cookie in %q", console.CookieName, h.Values("Set-Cookie"))
}

// The challenge is base64url(sha256(verifier)): the token endpoint
// checks it against the verifier the board sends, and refuses another.
func TestOIDCChallengeIsS256(t *testing.T) {
	sum := sha256.Sum256([]byte("verifier"))
	require.Len(t, base64.RawURLEncoding.EncodeToString(sum[:]), 43)
	b, srv := oidcBoard(t)
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body) // the server checked the S256 pair
	require.Len(t, srv.Minted(), 2)
}

// A callback whose state is not the started sign-in's, or with no
// started sign-in, is refused and sets no session.
func TestOIDCStateMismatch(t *testing.T) {
	b, srv := oidcBoard(t)
	br := newBrowser(t)
	login := br.get(b.URL + "/console/auth/login")
	to, _ := url.Parse(login.Header.Get("Location"))
	authz := br.get(to.String())
	back, _ := url.Parse(authz.Header.Get("Location"))
	bq := back.Query()
	bq.Set("state", "forged")
	got := br.get(b.URL + back.Path + "?" + bq.Encode())
	require.Equal(t, http.StatusUnauthorized, got.Status, got.Body)
	require.Empty(t, br.cookie(b.URL))
	// A fresh browser with the right state but no login cookie.
	got = newBrowser(t).get(b.URL + back.Path + "?" + back.RawQuery)
	require.Equal(t, http.StatusUnauthorized, got.Status, got.Body)
	require.Empty(t, srv.Minted())
}

// next is only ever a path under /console/.
func TestOIDCNextStaysOnTheConsole(t *testing.T) {
	b, _ := oidcBoard(t)
	for _, next := range []string{"https://evil.example/console/", "//evil.example/console/", "/admin/api/me", "/console/../x"} {
		_, done := signIn(t, b, newBrowser(t), next)
		require.Equal(t, "/console/", done.Header.Get("Location"), next)
	}
}

// An OIDC session whose access token has ended is refreshed silently: the
// Admin API answers and the browser gets the new sealed cookie.
func TestOIDCRefresh(t *testing.T) {
	b, srv := oidcBoard(t)
	srv.TTL = time.Minute
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body)
	before := br.cookie(b.URL)

	b.later(2 * time.Hour)
	me := br.get(b.URL + "/admin/api/probe")
	require.Equal(t, http.StatusOK, me.Status, me.Body)
	require.Equal(t, 1, srv.Refreshed())
	require.Contains(t, me.Header.Get("Set-Cookie"), "pact_console=sealed:v1:")
	sessionCookieIsHidden(t, me.Header)
	require.NotEqual(t, before, br.cookie(b.URL))
	// The new token serves without another refresh.
	require.Equal(t, http.StatusOK, br.get(b.URL+"/admin/api/probe").Status)
	require.Equal(t, 1, srv.Refreshed())
	br.noTokens(srv.Minted())
}

// Without PACT_CONSOLE_CLIENT_ID there is no OIDC sign-in: not_found says
// what to set.
func TestOIDCNotConfigured(t *testing.T) {
	b := newBoard(t, nil)
	got := newBrowser(t).get(b.URL + "/console/auth/login")
	require.Equal(t, http.StatusNotFound, got.Status)
	require.Contains(t, got.Body, `"error":"not_found"`)
	require.Contains(t, got.Body, "PACT_CONSOLE_CLIENT_ID")
}
