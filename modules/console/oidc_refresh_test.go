package console_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/console"
)

// An OIDC session keeps the refresh token each refresh hands it: the
// issuer rotates them, so a session still holding the first would end at
// its second refresh.
func TestARefreshedSessionRefreshesAgainWithTheRotatedToken(t *testing.T) {
	b, srv := oidcBoard(t)
	srv.TTL = time.Minute
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body)
	for i := 1; i <= 2; i++ {
		b.later(2 * time.Hour)
		me := br.get(b.URL + "/admin/api/probe")
		require.Equal(t, http.StatusOK, me.Status, "refresh %d: %s", i, me.Body)
		require.Equal(t, i, srv.Refreshed())
	}
}

// A request still carrying the cookie from before a refresh is served
// from that refresh up to the last instant of its grace, and after it
// exchanges the old refresh token itself, which the issuer has rotated
// away.
func TestAnOldCookieIsServedFromItsRefreshUntilTheGraceEnds(t *testing.T) {
	b, srv := oidcBoardWith(t, boardOptions{still: true})
	srv.TTL = time.Hour
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body)
	old := map[string]string{"Cookie": console.CookieName + "=" + br.cookie(b.URL)}
	probe := func() reply { return newBrowser(t).do(http.MethodGet, b.URL+"/admin/api/probe", old) }

	b.later(2 * time.Hour)
	require.Equal(t, http.StatusOK, probe().Status)
	require.Equal(t, 1, srv.Refreshed())
	b.later(console.RefreshGrace)
	got := probe()
	require.Equal(t, http.StatusOK, got.Status, "at the grace's last instant: %s", got.Body)
	require.Equal(t, 1, srv.Refreshed())
	b.later(time.Nanosecond)
	require.Equal(t, http.StatusUnauthorized, probe().Status)
}

// A token whose lifetime the issuer does not state (authtest sends
// expires_in 0 for a TTL under a second, which the OAuth client reads as
// unstated) is used as it is while the Admin API accepts it, and refreshed
// when it is refused.
func TestATokenOfUnstatedLifetimeIsRefreshedWhenRefused(t *testing.T) {
	b, srv := oidcBoard(t)
	srv.TTL = 500 * time.Millisecond
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body)
	// Within the issuer's 30 s of leeway it is accepted: no refresh.
	me := br.get(b.URL + "/admin/api/probe")
	require.Equal(t, http.StatusOK, me.Status, me.Body)
	require.Equal(t, 0, srv.Refreshed())
	b.later(time.Hour)
	me = br.get(b.URL + "/admin/api/probe")
	require.Equal(t, http.StatusOK, me.Status, me.Body)
	require.Equal(t, 1, srv.Refreshed())
}
