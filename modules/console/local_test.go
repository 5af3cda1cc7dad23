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
	"github.com/pactboard/pact/modules/console"
)

func localLink(t *testing.T, b *board, person string, now time.Time) string {
	link, err := console.LocalLink(context.Background(), b.DB, b.URL, person, now)
	require.NoError(t, err)
	return link
}

// A local sign-in link works once: it sets a sealed, HttpOnly, Strict
// session cookie that the Admin API accepts in place of a bearer token,
// with the CSRF token on unsafe calls; logout ends it.
func TestLocalLinkWorksOnce(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	link := localLink(t, b, "ann", time.Now())
	br := newBrowser(t)

	got := br.get(link)
	require.Equal(t, http.StatusFound, got.Status, got.Body)
	require.Equal(t, "/console/", got.Header.Get("Location"))
	set := got.Header.Get("Set-Cookie")
	require.Contains(t, set, console.CookieName+"=sealed:v1:")
	require.Contains(t, set, "HttpOnly")
	require.Contains(t, set, "SameSite=Strict")
	require.Contains(t, set, "Path=/")
	require.Equal(t, "default-src 'self'", got.Header.Get("Content-Security-Policy")[:len("default-src 'self'")])
	require.Contains(t, got.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	require.Equal(t, "nosniff", got.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "same-origin", got.Header.Get("Referrer-Policy"))

	again := newBrowser(t).get(link)
	require.Equal(t, http.StatusUnauthorized, again.Status)
	require.Contains(t, again.Body, `"error":"unauthorized"`)

	sess := br.get(b.URL + "/console/session")
	require.Equal(t, http.StatusOK, sess.Status, sess.Body)
	var s struct {
		Person map[string]string `json:"person"`
		CSRF   string            `json:"csrf"`
	}
	require.NoError(t, json.Unmarshal([]byte(sess.Body), &s))
	require.Equal(t, map[string]string{"id": "ann", "name": "Ann", "role": "owner", "org_id": "acme"}, s.Person)
	require.NotEmpty(t, s.CSRF)

	me := br.get(b.URL + "/admin/api/probe")
	require.Equal(t, http.StatusOK, me.Status, me.Body)
	require.Contains(t, me.Body, `"id":"ann"`)

	for _, h := range []map[string]string{nil, {kernel.CSRFHeader: "wrong"}} {
		got := br.do(http.MethodPost, b.URL+"/admin/api/probe", h)
		require.Equal(t, http.StatusForbidden, got.Status, got.Body)
		require.Contains(t, got.Body, kernel.CSRFHeader)
	}
	ok := br.do(http.MethodPost, b.URL+"/admin/api/probe", map[string]string{kernel.CSRFHeader: s.CSRF})
	require.Equal(t, http.StatusOK, ok.Status, ok.Body)

	require.Equal(t, http.StatusForbidden, br.do(http.MethodPost, b.URL+"/console/auth/logout", nil).Status)
	out := br.do(http.MethodPost, b.URL+"/console/auth/logout", map[string]string{kernel.CSRFHeader: s.CSRF})
	require.Equal(t, http.StatusNoContent, out.Status, out.Body)
	require.Empty(t, br.cookie(b.URL))
	require.Equal(t, http.StatusUnauthorized, br.get(b.URL+"/console/session").Status)
	require.Equal(t, http.StatusUnauthorized, br.get(b.URL+"/admin/api/probe").Status)
}

// Unknown, expired and used codes all get the same 401.
func TestLocalLinkRefusals(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	expired := localLink(t, b, "ann", time.Now().Add(-time.Hour))
	used := localLink(t, b, "ann", time.Now())
	require.Equal(t, http.StatusFound, newBrowser(t).get(used).Status)
	var bodies []string
	for _, link := range []string{expired, used, b.URL + "/console/auth/local?code=nope", b.URL + "/console/auth/local"} {
		got := newBrowser(t).get(link)
		require.Equal(t, http.StatusUnauthorized, got.Status, link)
		require.Empty(t, got.Header.Get("Set-Cookie"))
		bodies = append(bodies, got.Body)
	}
	for _, body := range bodies {
		require.Equal(t, bodies[0], body)
	}
}

// A session cookie altered by a byte, or sealed for another place, signs
// nobody in.
func TestTamperedCookie(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	br := newBrowser(t)
	require.Equal(t, http.StatusFound, br.get(localLink(t, b, "ann", time.Now())).Status)
	value := br.cookie(b.URL)
	require.NotEmpty(t, value)
	flip := []byte(value)
	flip[len(flip)-5] ^= 1
	for _, v := range []string{string(flip), "not-sealed", value[:len(value)-10]} {
		h := map[string]string{"Cookie": console.CookieName + "=" + v}
		plain := newBrowser(t)
		got := plain.do(http.MethodGet, b.URL+"/console/session", h)
		require.Equal(t, http.StatusUnauthorized, got.Status, v)
		require.Contains(t, got.Body, `"error":"unauthorized"`)
		require.Equal(t, http.StatusUnauthorized, plain.do(http.MethodGet, b.URL+"/admin/api/probe", h).Status)
	}
}

// With PACT_CONSOLE_LOCAL_SIGNIN off the link route refuses even a valid
// code.
func TestLocalSigninOff(t *testing.T) {
	b := newBoard(t, map[string]string{"PACT_CONSOLE_LOCAL_SIGNIN": "off"})
	b.Org("acme", "ann")
	got := newBrowser(t).get(localLink(t, b, "ann", time.Now()))
	require.Equal(t, http.StatusNotFound, got.Status, got.Body)
	require.Contains(t, got.Body, "PACT_CONSOLE_LOCAL_SIGNIN")
	require.Empty(t, got.Header.Get("Set-Cookie"))
}

// A local session ends when its person is disabled.
func TestLocalSessionOfDisabledPerson(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	b.Person("ann", "bea", identity.Viewer)
	br := newBrowser(t)
	require.Equal(t, http.StatusFound, br.get(localLink(t, b, "bea", time.Now())).Status)
	require.Equal(t, http.StatusOK, br.get(b.URL+"/admin/api/probe").Status)
	disabled := true
	_, err := b.Identity.SetHumanFields(context.Background(), b.DB, "bea", identity.HumanFields{Disabled: &disabled})
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, br.get(b.URL+"/admin/api/probe").Status)
}

// A local sign-in code is kept a day after it ends, then dropped when the
// next one is issued.
func TestLocalCodesAreDroppedADayAfterTheyEnd(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	now := time.Now()
	for _, at := range []time.Time{
		now.Add(-24*time.Hour - console.LocalCodeTTL - time.Minute), // ended a day and a minute ago
		now.Add(-2 * time.Hour), // ended less than two hours ago
		now,
	} {
		_, err := console.IssueLocalCode(context.Background(), b.DB, "ann", at)
		require.NoError(t, err)
	}
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM console_codes WHERE expires_at < ?`, now), "the code that ended within the day is kept")
	require.Equal(t, 2, b.Count(`SELECT count(*) FROM console_codes`), "the code that ended over a day ago is dropped")
}

// A local session whose person cannot be read (the database fails) is
// answered as the board's failure, not as an ended session: the console
// must not send its person to sign in again for it.
func TestALocalSessionWhosePersonCannotBeReadIsNotEnded(t *testing.T) {
	b := newBoard(t, nil)
	b.Org("acme", "ann")
	br := newBrowser(t)
	require.Equal(t, http.StatusFound, br.get(localLink(t, b, "ann", time.Now())).Status)
	b.Exec(`ALTER TABLE humans RENAME TO humans_unreadable`)
	got := br.get(b.URL + "/admin/api/probe")
	require.GreaterOrEqual(t, got.Status, http.StatusInternalServerError, got.Body)
	require.NotContains(t, got.Body, `"error":"unauthorized"`)
}
