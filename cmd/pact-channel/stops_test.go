package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/pacts"
)

// counting counts the requests of one pact stream.
type counting struct{ n atomic.Int32 }

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// Each way the board ends or refuses the pact stream (CHAN-006) has
// pact-channel's stream log why once and not try again within the next
// seconds (it waits a minute), where a plain drop is resumed at once:
// a stop line (the agent paused while the stream is open), 401 (a token
// that is no live agent token) and 403 (an agent paused before it
// connects), each on a real board, with a plain drop (a proxy cutting the
// connection) as the control. The streams run side by side.
func TestEveryStopAndRefusalOfTheStreamWaitsAMinute(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{Events: true}, pacts.New(pacts.Options{}))
	w.Office()
	for _, a := range []string{"a-stop", "a-403", "a-drop"} {
		w.Agent("ana", kerneltest.AgentInput{ID: a, Client: "code", Projects: []string{"web"}})
	}
	u, err := url.Parse(w.URL)
	require.NoError(t, err)
	px := newProxy(t, u.Host)
	require.NoError(t, w.SetAgentStatus("a-403", "paused"))

	type stream struct {
		name, agent, token, url string
		stops                   bool
		requests                *counting
		log                     *logtest.Buffer
	}
	streams := []*stream{
		{name: "stop line", agent: "a-stop", token: w.Token("a-stop"), url: w.URL, stops: true},
		{name: "401", agent: "a-401", token: "pact_notatoken", url: w.URL, stops: true},
		{name: "403", agent: "a-403", token: w.Token("a-403"), url: w.URL, stops: true},
		{name: "plain drop", agent: "a-drop", token: w.Token("a-drop"), url: px.URL()},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, len(streams))
	t.Cleanup(func() {
		cancel()
		for range streams {
			<-done
		}
	})
	for _, s := range streams {
		s.requests, s.log = &counting{}, &logtest.Buffer{}
		ps := &pactStream{cfg: &config{URL: s.url, Token: s.token, Agent: s.agent}, client: &http.Client{Transport: s.requests},
			logger: slog.New(slog.NewTextHandler(s.log, nil)), last: -1}
		go func() {
			defer func() { done <- struct{}{} }()
			ps.run(ctx, func(context.Context, pactEvent) error { return nil })
		}()
	}
	waitFor := func(s *stream, what string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(s.log.String(), what) {
			// A stop taken for a failure to open or for a drop is retried
			// within seconds: say so now rather than wait out the bound.
			for _, retried := range []string{"the pact stream did not open", "the pact stream dropped; resuming"} {
				if s.stops && strings.Contains(s.log.String(), retried) {
					t.Fatalf("%s: a stop, taken for %q:\n%s", s.name, retried, s.log)
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: never logged %q:\n%s", s.name, what, s.log)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor(streams[0], "the pact stream is open")
	waitFor(streams[3], "the pact stream is open")
	require.NoError(t, w.SetAgentStatus("a-stop", "paused"))
	px.cut()
	px.restore()
	const stopped = "the board stopped the pact stream; trying again in a minute"
	for _, s := range streams {
		if s.stops {
			waitFor(s, stopped)
		}
	}
	waitFor(streams[3], "the pact stream dropped; resuming")
	// A stream that retried at once would have tried again within 200 ms
	// and doubled from there: 3 s leaves room for several tries.
	time.Sleep(3 * time.Second)
	for _, s := range streams {
		log := s.log.String()
		if s.stops {
			require.Equal(t, int32(1), s.requests.n.Load(), "%s: tried once, the next try a minute later:\n%s", s.name, log)
			require.Equal(t, 1, strings.Count(log, "the board stopped the pact stream"), "%s: why, logged once:\n%s", s.name, log)
			continue
		}
		require.GreaterOrEqual(t, s.requests.n.Load(), int32(2), "%s: resumed at once:\n%s", s.name, log)
		require.NotContains(t, log, "the board stopped the pact stream", s.name)
	}
}
