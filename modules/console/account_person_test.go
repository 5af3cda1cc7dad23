package console_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/modules/console"
	"github.com/pactboard/pact/modules/console/consoletest"
)

// oidcAccount signs the issuer's account in to b's console, as a browser
// would, and returns its session.
func oidcAccount(t *testing.T, b *board) *consoletest.Session {
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body)
	s := &consoletest.Session{Base: b.URL, Cookie: console.CookieName + "=" + br.cookie(b.URL)}
	s.CSRF = csrfOf(t, s)
	return s
}

// An OIDC account that accepts its invitation during its session is
// signed in as that person on its next call, and its session is then
// theirs: its live stream opens, and signing out ends that stream.
func TestAnAccountThatBecomesAPersonIsSignedInAsThem(t *testing.T) {
	b, srv := oidcBoard(t)
	b.Invited("ann", "bea", identity.Viewer)
	srv.Subject, srv.Email = "sub-bea", "bea@example.com"
	s := oidcAccount(t, b)
	status, body := s.Do(t, http.MethodGet, "/admin/api/probe")
	require.Equal(t, http.StatusForbidden, status, body) // not_registered: no person yet

	p, err := b.Identity.AcceptInvitation(context.Background(), b.DB, "bea", "bea@example.com", b.Issuer.URL, "sub-bea")
	require.NoError(t, err)
	require.NotNil(t, p)
	status, body = s.Do(t, http.MethodGet, "/admin/api/probe")
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, `"id":"bea"`)

	live := s.Live(t)
	s.SignOut(t)
	ended, _ := live.Ended(2 * time.Second)
	require.True(t, ended, "the live stream of the session outlived its sign-out by 2 s")
}

// An account's GET /console/session that finds its session signed out
// midway (after the person lookup, before the account's) answers that the
// session has ended, as for any ended session.
func TestAnAccountSignedOutMidRequestIsToldItsSessionEnded(t *testing.T) {
	b, srv := oidcBoard(t)
	srv.Subject, srv.Email = "sub-newcomer", "newcomer@example.com"
	s := oidcAccount(t, b)

	// Hold the people's table: the request reads its session, then waits
	// to look its account up among the people.
	ctx := context.Background()
	tx, err := b.DB.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	_, err = tx.ExecContext(ctx, `LOCK TABLE humans IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, b.URL+"/console/session", nil)
		req.Header.Set("Cookie", s.Cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		answered <- answer{status: resp.StatusCode, body: string(body), err: err}
	}()
	require.Eventually(t, func() bool {
		return b.Count(`SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'humans'::regclass`) > 0
	}, 10*time.Second, 20*time.Millisecond, "the request never waited for the people's table")
	_, err = tx.ExecContext(ctx, `DELETE FROM console_sessions`) // signed out meanwhile
	require.NoError(t, err)
	require.NoError(t, tx.Commit())

	got := <-answered
	require.NoError(t, got.err)
	require.Equal(t, http.StatusUnauthorized, got.status, got.body)
	require.Contains(t, got.body, "has ended", "the answer says the session ended, not that none was sent")
}
