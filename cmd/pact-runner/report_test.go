package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// A report the board could not take (here a 503 from a proxy in front of
// it, for the first report) is sent again after a short wait, and the
// task is recorded as the run ended.
func TestAReportTheBoardCouldNotTakeIsSentAgain(t *testing.T) {
	w := newWorld(t)
	id := w.post("Reported through a hiccup", "runner-web", nil)
	target, err := url.Parse(w.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var reports atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Host = target.Host // the host the board answers as
		if bytes.Contains(body, []byte(`"pact_report"`)) && bytes.Contains(body, []byte(`"completed"`)) && reports.Add(1) == 1 {
			http.Error(rw, "the board is restarting", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(rw, r)
	}))
	defer front.Close()
	env := w.env("runner-web", "echo done")
	env["PACT_URL"] = front.URL
	out, err := w.runOnce(env)
	require.NoError(t, err, out)
	require.Equal(t, "completed", w.status(id), out)
	require.Contains(t, out, "report failed; trying again")
	require.EqualValues(t, 2, reports.Load(), "refused once, then recorded")
}
