package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

// A board that answers the stream's opening with an error the contract
// does not name as a stop (503 while halted) is tried again with a
// doubling backoff, never at the first retry's pace: each "did not open"
// line says the next wait, and each is twice the one before.
func TestAStreamThatDoesNotOpenBacksOffDoubling(t *testing.T) {
	board := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "halted", http.StatusServiceUnavailable)
	}))
	t.Cleanup(board.Close)
	log := &logtest.Buffer{}
	ps := &pactStream{cfg: &config{URL: board.URL, Token: "pact_t", Agent: "a"}, client: board.Client(),
		logger: slog.New(slog.NewTextHandler(log, nil)), last: -1}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ps.run(ctx, func(context.Context, pactEvent) error { return nil })
	}()
	t.Cleanup(func() { cancel(); <-done })
	waits := regexp.MustCompile(`the pact stream did not open" status=503 .*retry_in=(\S+)`)
	deadline := time.Now().Add(20 * time.Second)
	for len(waits.FindAllStringSubmatch(log.String(), -1)) < 4 {
		require.False(t, time.Now().After(deadline), "four failed openings were never logged:\n%s", log)
		time.Sleep(10 * time.Millisecond)
	}
	var got []string
	for _, m := range waits.FindAllStringSubmatch(log.String(), -1)[:4] {
		got = append(got, m[1])
	}
	require.Equal(t, []string{retryMin.String(), (2 * retryMin).String(), (4 * retryMin).String(), (8 * retryMin).String()}, got,
		"each wait doubles the one before:\n%s", log)
}
