package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/console"
	"github.com/pactboard/pact/modules/console/consoletest"
)

// signInAs signs person in to b's console by each kind of session (local
// link; OIDC, where the issuer signs in ann) and returns the session.
var signInAs = map[string]func(t *testing.T, b *board, person string) *consoletest.Session{
	"local": func(t *testing.T, b *board, person string) *consoletest.Session {
		return consoletest.SignIn(t, b.DB, b.URL, person)
	},
	"oidc": func(t *testing.T, b *board, person string) *consoletest.Session {
		br := newBrowser(t)
		_, done := signIn(t, b, br, "/console/")
		require.Equal(t, http.StatusFound, done.Status, done.Body)
		s := &consoletest.Session{Base: b.URL, Cookie: console.CookieName + "=" + br.cookie(b.URL)}
		s.CSRF = csrfOf(t, s)
		return s
	},
}

func csrfOf(t *testing.T, s *consoletest.Session) string {
	status, body := s.Do(t, http.MethodGet, "/console/session")
	require.Equal(t, http.StatusOK, status, body)
	var got struct {
		CSRF string `json:"csrf"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	return got.CSRF
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// refusedEverywhere checks that s's cookie signs nobody in on an Admin API
// call (safe and unsafe), the live stream and a console route: 401, as an
// ended session.
func refusedEverywhere(t *testing.T, s *consoletest.Session) {
	t.Helper()
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/admin/api/probe"}, {http.MethodPost, "/admin/api/probe"},
		{http.MethodGet, "/admin/api/live"}, {http.MethodGet, "/console/session"},
	} {
		status, body := s.Do(t, c.method, c.path)
		require.Equal(t, http.StatusUnauthorized, status, "%s %s: %s", c.method, c.path, body)
		require.Contains(t, body, `"error":"unauthorized"`)
	}
}

// A copy of the session cookie taken before sign-out is refused after it,
// for every kind of session, on the Admin API, the live stream and the
// console's routes (SEC-020).
func TestSignOutEndsACopiedCookie(t *testing.T) {
	require.ElementsMatch(t, console.SessionKinds(), keys(signInAs), "a kind of session the test does not sign in by")
	for kind, in := range signInAs {
		t.Run(kind, func(t *testing.T) {
			b, _ := oidcBoard(t)
			s := in(t, b, "ann")
			copied := *s
			status, body := copied.Do(t, http.MethodGet, "/admin/api/probe")
			require.Equal(t, http.StatusOK, status, body)
			s.SignOut(t)
			refusedEverywhere(t, &copied)
			// Signing out again with the copy changes nothing and says so
			// as plainly.
			status, _ = copied.Do(t, http.MethodPost, "/console/auth/logout")
			require.Equal(t, http.StatusNoContent, status)
			// Another session of the same person is untouched.
			other := in(t, b, "ann")
			status, body = other.Do(t, http.MethodGet, "/admin/api/probe")
			require.Equal(t, http.StatusOK, status, body)
		})
	}
}

// After sign-out an OIDC session's refresh token is never used: a copied
// cookie whose access token has ended is refused without a refresh.
func TestSignOutEndsTheOIDCRefresh(t *testing.T) {
	b, srv := oidcBoard(t)
	srv.TTL = time.Minute
	s := signInAs["oidc"](t, b, "ann")
	copied := *s
	s.SignOut(t)
	b.later(2 * time.Hour)
	status, body := copied.Do(t, http.MethodGet, "/admin/api/probe")
	require.Equal(t, http.StatusUnauthorized, status, body)
	require.Equal(t, 0, srv.Refreshed(), "a signed-out session's refresh token was exchanged")
}

// A cookie sealed by the board but naming no session record (a cookie
// from before records were kept, or one whose record was dropped) is
// refused as an ended one.
func TestCookieWithoutARecordIsRefused(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	s := consoletest.SignIn(t, b.DB, b.URL, "ann")
	b.Exec(`DELETE FROM console_sessions`)
	refusedEverywhere(t, s)
}

// Ended records are dropped when the next session begins.
func TestEndedSessionRecordsAreDropped(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	consoletest.SignIn(t, b.DB, b.URL, "ann")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM console_sessions`))
	b.later(console.SessionTTL + time.Minute)
	link := localLink(t, b, "ann", time.Now().Add(console.SessionTTL+time.Minute))
	require.Equal(t, http.StatusFound, newBrowser(t).get(link).Status)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM console_sessions`))
}

// running runs b's kernel (the live stream's listener) for the test.
func running(t *testing.T, b *board) {
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = b.Kernel.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
}

// warm enqueues until live carries two: then the board's listener hears
// the outbox, and the stream is open.
func warm(t *testing.T, b *board, live *consoletest.Live) {
	deadline := time.After(15 * time.Second)
	// Two of them: a stream that ended after its first write would pass
	// every test of its ending.
	for carried := 0; ; {
		id := enqueue(t, b, outbox.Notification{Kind: outbox.PactUnread, ProjectID: "rocket", HumanID: "bea", Title: "t"})
		select {
		case ev := <-live.Events:
			if ev.ID == id {
				if carried++; carried == 2 {
					return
				}
			}
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatal("the live stream carried fewer than two events in 15 s")
		}
	}
}

// personStops are the stops that concern a person, each applied to bea
// (who holds session s).
var personStops = map[string]func(t *testing.T, b *board, s *consoletest.Session){
	"disabled": func(t *testing.T, b *board, _ *consoletest.Session) {
		disabled := true
		_, err := b.Identity.SetHumanFields(context.Background(), b.DB, "bea", identity.HumanFields{Disabled: &disabled})
		require.NoError(t, err)
	},
	"signed out": func(t *testing.T, _ *board, s *consoletest.Session) { s.SignOut(t) },
}

// openAs opens bea's live stream the ways a client can: with the console
// session's cookie, or with a bearer token.
var openAs = map[string]func(t *testing.T, b *board, s *consoletest.Session) *consoletest.Live{
	"cookie": func(t *testing.T, _ *board, s *consoletest.Session) *consoletest.Live { return s.Live(t) },
	"bearer": func(t *testing.T, b *board, _ *consoletest.Session) *consoletest.Live {
		return consoletest.OpenLive(t, b.URL, http.Header{"Authorization": {"Bearer " + b.AdminToken("bea")}})
	},
}

// streamBoard is a running board where bea, a viewer of acme, is signed
// in to the console.
func streamBoard(t *testing.T, hub bool) (*board, *consoletest.Session) {
	return streamBoardWith(t, boardOptions{noHub: !hub})
}

// streamBoardWith is streamBoard shaped by o.
func streamBoardWith(t *testing.T, o boardOptions) (*board, *consoletest.Session) {
	b := newBoardWith(t, o)
	b.Org("acme", "ann")
	b.Project("ann", "rocket", false)
	b.Person("ann", "bea", identity.Viewer)
	running(t, b)
	return b, consoletest.SignIn(t, b.DB, b.URL, "bea")
}

// A person's stop ends their open live stream within 2 seconds, woken by
// the stop alone (SEC-022): disabled, whichever way the stream was opened;
// signed out, the stream of that session. That it writes nothing after the
// stop is TestLiveStreamChecksBeforeWriting.
func TestLiveStreamEndsAtAPersonsStop(t *testing.T) {
	for stop, apply := range personStops {
		for how, open := range openAs {
			if stop == "signed out" && how == "bearer" {
				continue // a bearer stream holds no console session
			}
			t.Run(stop+"/"+how, func(t *testing.T) {
				b, s := streamBoard(t, true)
				live := open(t, b, s)
				warm(t, b, live)
				apply(t, b, s)
				// Nothing is raised meanwhile: the stop alone must end it.
				ended, _ := live.Ended(2 * time.Second)
				require.True(t, ended, "the live stream outlived the stop by 2 s")
			})
		}
	}
}

// Where a stop's notification never reaches the stream (no events hub
// here), the stream still re-checks before it writes: the first event
// after the stop is not written, and the stream ends instead.
func TestLiveStreamChecksBeforeWriting(t *testing.T) {
	for stop, apply := range personStops {
		t.Run(stop, func(t *testing.T) {
			b, s := streamBoard(t, false)
			live := s.Live(t)
			warm(t, b, live)
			apply(t, b, s)
			after := enqueue(t, b, outbox.Notification{Kind: outbox.PactUnread, ProjectID: "rocket", HumanID: "bea", Title: "t"})
			ended, got := live.Ended(10 * time.Second)
			for _, ev := range got {
				require.NotEqual(t, after, ev.ID, "the stream carried an event raised after the stop")
			}
			require.True(t, ended, "the live stream outlived the stop and the event after it")
		})
	}
}

// Signing out deletes the session cookie in the browser at once
// (Max-Age=0), not after a delay.
func TestSignOutDeletesTheCookieAtOnce(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	s := consoletest.SignIn(t, b.DB, b.URL, "ann")
	out := newBrowser(t).do(http.MethodPost, b.URL+"/console/auth/logout",
		map[string]string{"Cookie": s.Cookie, kernel.CSRFHeader: s.CSRF})
	require.Equal(t, http.StatusNoContent, out.Status, out.Body)
	var found bool
	for _, c := range (&http.Response{Header: out.Header}).Cookies() {
		if c.Name == console.CookieName {
			found = true
			require.Empty(t, c.Value)
			require.Negative(t, c.MaxAge, "Max-Age=0 deletes the cookie at once: %s", c.Raw)
		}
	}
	require.True(t, found, "no %s cookie in %q", console.CookieName, out.Header.Values("Set-Cookie"))
}
