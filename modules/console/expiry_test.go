package console_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/console"
	"github.com/pactboard/pact/modules/console/consoletest"
)

// A started OIDC sign-in can be finished until its last second, and not
// from the second LoginTTL after it began.
func TestAStartedSignInEndsAtLoginTTL(t *testing.T) {
	b, _ := oidcBoardWith(t, boardOptions{still: true})
	finishAfter := func(d time.Duration) reply {
		br := newBrowser(t)
		login := br.get(b.URL + "/console/auth/login")
		to, err := url.Parse(login.Header.Get("Location"))
		require.NoError(t, err)
		back, err := url.Parse(br.get(to.String()).Header.Get("Location"))
		require.NoError(t, err)
		b.later(d)
		return br.get(b.URL + back.Path + "?" + back.RawQuery)
	}
	got := finishAfter(console.LoginTTL - time.Second)
	require.Equal(t, http.StatusFound, got.Status, got.Body)
	got = finishAfter(console.LoginTTL)
	require.Equal(t, http.StatusUnauthorized, got.Status, got.Body)
}

// A session is over from the second it expires: its cookie is then no
// session at all, so signing out with it needs no CSRF token, where a
// second earlier it still did.
func TestASessionIsOverFromTheSecondItExpires(t *testing.T) {
	b := newBoardWith(t, boardOptions{still: true})
	b.Org("acme", "ann")
	s := consoletest.SignIn(t, b.DB, b.URL, "ann")
	signOutWithoutCSRF := func() int {
		return newBrowser(t).do(http.MethodPost, b.URL+"/console/auth/logout", map[string]string{"Cookie": s.Cookie}).Status
	}
	b.later(console.SessionTTL - time.Second)
	require.Equal(t, http.StatusForbidden, signOutWithoutCSRF(), "a second before it expires")
	b.later(time.Second)
	require.Equal(t, http.StatusNoContent, signOutWithoutCSRF(), "the second it expires")
}
