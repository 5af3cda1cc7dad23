package console_test

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An account that is no person of the board is signed in all the same:
// GET /console/session shows it with person null (so the console can offer
// its invitations), and the gated Admin API still refuses it not_registered.
func TestOIDCAccountThatIsNoPersonYet(t *testing.T) {
	b, srv := oidcBoard(t)
	srv.Subject, srv.Email = "sub-newcomer", "newcomer@example.com"
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body)

	got := br.get(b.URL + "/console/session")
	require.Equal(t, http.StatusOK, got.Status, got.Body)
	var s struct {
		Person  *struct{ ID string } `json:"person"`
		Account struct {
			Email         string `json:"email"`
			EmailVerified bool   `json:"email_verified"`
		} `json:"account"`
		CSRF string `json:"csrf"`
	}
	require.NoError(t, json.Unmarshal([]byte(got.Body), &s))
	require.Nil(t, s.Person)
	require.Equal(t, "newcomer@example.com", s.Account.Email)
	require.True(t, s.Account.EmailVerified)
	require.NotEmpty(t, s.CSRF)

	probe := br.get(b.URL + "/admin/api/probe")
	require.Equal(t, http.StatusForbidden, probe.Status, probe.Body)
	require.Contains(t, probe.Body, `"error":"not_registered"`)
	br.noTokens(srv.Minted())
}

// Requests that arrive together with a session whose access token ended
// refresh it once: the issuer rotates refresh tokens, so a second exchange
// of the same one would be refused and end the session mid-page.
func TestOIDCRefreshOnceForRequestsTogether(t *testing.T) {
	b, srv := oidcBoard(t)
	srv.TTL = time.Minute
	br := newBrowser(t)
	_, done := signIn(t, b, br, "/console/")
	require.Equal(t, http.StatusFound, done.Status, done.Body)

	b.later(2 * time.Hour)
	const together = 8
	cookie := "pact_console=" + br.cookie(b.URL)
	status := make([]int, together)
	var wg sync.WaitGroup
	for i := range together {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodGet, b.URL+"/admin/api/probe", nil)
			if err != nil {
				t.Error(err)
				return
			}
			req.Header.Set("Cookie", cookie)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			status[i] = resp.StatusCode
		})
	}
	wg.Wait()
	for i, s := range status {
		require.Equal(t, http.StatusOK, s, "request %d", i)
	}
	require.Equal(t, 1, srv.Refreshed(), "one exchange for all of them")
	// A request still carrying the old cookie a moment later is served
	// from the same exchange.
	req, err := http.NewRequest(http.MethodGet, b.URL+"/admin/api/probe", nil)
	require.NoError(t, err)
	req.Header.Set("Cookie", cookie)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1, srv.Refreshed())
}
