package events

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

// TestAPayloadOfExactlyTheLimitIsPublished proves maxPayload is inclusive:
// an event whose notification is exactly maxPayload bytes is published and
// delivered, and one a byte longer is refused before it reaches PostgreSQL.
func TestAPayloadOfExactlyTheLimitIsPublished(t *testing.T) {
	ev := Event{Kind: KindTask, TaskID: "x"}
	one, err := Payload(ev)
	require.NoError(t, err)
	ev.TaskID = strings.Repeat("x", maxPayload-len(one)+1)
	payload, err := Payload(ev)
	require.NoError(t, err)
	require.Len(t, payload, maxPayload)

	d := pgtest.New(t)
	h := startHub(t, d, nil)
	s := h.Subscribe(func(e Event) bool { return e.TaskID == ev.TaskID })
	defer s.Close()
	publish(t, d, ev)
	waitWake(t, s, 2*time.Second)

	ev.TaskID += "x"
	_, err = Payload(ev)
	require.ErrorContains(t, err, "over the notification limit")
	require.ErrorContains(t, Publish(context.Background(), d, ev), "over the notification limit")
}

// delayLog is a logger that records the delay ("in") of every warning the
// hub logs when its listener lost its connection.
type delayLog struct {
	hclog.Logger
	mu     sync.Mutex
	delays []time.Duration
}

func (l *delayLog) Warn(_ string, args ...any) {
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "in" {
			l.mu.Lock()
			l.delays = append(l.delays, args[i+1].(time.Duration))
			l.mu.Unlock()
		}
	}
}

func (l *delayLog) first(n int) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.delays) < n {
		return nil
	}
	return append([]time.Duration(nil), l.delays[:n]...)
}

// refusingServer is an address where every connection is closed at once,
// so a hub's every attempt to connect there fails.
func refusingServer(t *testing.T) *pgx.ConnConfig {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://nobody@%s/none?sslmode=disable&connect_timeout=5", ln.Addr()))
	require.NoError(t, err)
	return cfg
}

// reconnectDelays runs h until it has logged n reconnection delays and
// returns them.
func reconnectDelays(t *testing.T, h *Hub, log *delayLog, n int) []time.Duration {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	var got []time.Duration
	require.Eventually(t, func() bool { got = log.first(n); return got != nil }, 30*time.Second, time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	return got
}

// TestTheListenerReconnectsAfterDoublingDelays proves Run's backoff as its
// documentation gives it: a hub that cannot connect tries again after 100 ms,
// then after twice the last delay each time, up to 2 s.
func TestTheListenerReconnectsAfterDoublingDelays(t *testing.T) {
	log := &delayLog{Logger: hclog.NewNullLogger()}
	ms := time.Millisecond
	require.Equal(t, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 2000 * ms},
		reconnectDelays(t, NewHub(refusingServer(t), log), log, 6))
}

// TestIdlePingsNeitherReconnectNorWakeAnyone proves that a listener idle
// past idlePing checks its connection and keeps it: it does not reconnect,
// which would wake every subscriber (the resync), so a subscriber no event
// matches is not woken through many idle periods.
func TestIdlePingsNeitherReconnectNorWakeAnyone(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, func(h *Hub) { h.idlePing = 20 * time.Millisecond })
	quiet := h.Subscribe(func(Event) bool { return false })
	defer quiet.Close()
	noWake(t, quiet, 500*time.Millisecond) // 25 idle periods
}

// TestNotYetIsCheckedAgainAfter20ms proves that a check answering ErrNotYet
// is run again no sooner than 20 ms later (docs/events.md, "The cursor"):
// the wait looks again soon, but does not spin on the database.
func TestNotYetIsCheckedAgainAfter20ms(t *testing.T) {
	var h *Hub // no hub: no wake can come
	var at []time.Time
	check := func(context.Context) (bool, error) {
		at = append(at, time.Now())
		if len(at) < 4 {
			return false, ErrNotYet
		}
		return true, nil
	}
	require.NoError(t, h.NewWait(nil, time.Minute, check, nil).Run(context.Background()))
	require.Len(t, at, 4)
	for i := 1; i < len(at); i++ {
		require.GreaterOrEqual(t, at[i].Sub(at[i-1]), 20*time.Millisecond, "check %d", i+1)
	}
}
