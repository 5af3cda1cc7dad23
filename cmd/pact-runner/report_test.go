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

// front is a proxy in front of the board that answers 503, as a board
// restarting would, to each request refuse picks out by its body. It
// returns the URL to give the runner as PACT_URL.
func (w *world) front(t *testing.T, refuse func(body []byte) bool) string {
	target, err := url.Parse(w.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	s := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Host = target.Host // the host the board answers as
		if refuse(body) {
			http.Error(rw, "the board is restarting", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(rw, r)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// A report the board could not take (refused with a 503, the first
// report) is sent again after a short wait, and the task is recorded as
// the run ended.
func TestAReportTheBoardCouldNotTakeIsSentAgain(t *testing.T) {
	w := newWorld(t)
	id := w.post("Reported through a hiccup", "runner-web", nil)
	var reports atomic.Int32
	env := w.env("runner-web", "echo done")
	env["PACT_URL"] = w.front(t, func(body []byte) bool {
		return bytes.Contains(body, []byte(`"pact_report"`)) && bytes.Contains(body, []byte(`"completed"`)) && reports.Add(1) == 1
	})
	out, err := w.runOnce(env)
	require.NoError(t, err, out)
	require.Equal(t, "completed", w.status(id), out)
	require.Contains(t, out, "report failed; trying again")
	require.EqualValues(t, 2, reports.Load(), "refused once, then recorded")
}

// When only messages woke pact_events and the runner cannot read them (the
// board refuses pact_message), it waits before its next pact_events
// instead of being woken by the same unread messages at once, again and
// again.
func TestAMessageTheRunnerCannotReadIsNotPolledFor(t *testing.T) {
	w := newWorld(t)
	id := w.post("Not the runner's", "", nil)
	env := w.env("runner-web", "true")
	env["PACT_URL"] = w.front(t, func(body []byte) bool { return bytes.Contains(body, []byte(`"pact_message"`)) })
	s := w.start(env)
	eventually(t, "the runner waits in pact_events", func() bool { return w.listening("runner-web") }, s.log)
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web"), "to": "runner-web",
		"body": "Can you look?"})
	eventually(t, "the runner tried to read it", func() bool { return s.log.Contains("cannot read the messages on a task") }, s.log)
	w.requireNoPolling(s)
	require.NoError(t, s.stop(t))
}
