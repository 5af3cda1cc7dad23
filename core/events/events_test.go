package events

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// startHub runs a hub on d until the test ends, and waits until it listens.
func startHub(t testing.TB, d *db.DB, tune func(*Hub)) *Hub {
	t.Helper()
	h := NewHub(d.ListenConfig(), nil)
	if tune != nil {
		tune(h)
	}
	probe := h.Subscribe(nil) // before Run, so the first LISTEN's wake cannot be missed
	defer probe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	waitWake(t, probe, 10*time.Second) // the first LISTEN wakes everyone
	return h
}

func waitWake(t testing.TB, s *Subscription, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-s.C():
		return time.Since(start)
	case <-time.After(within):
		t.Fatalf("no wake within %v", within)
		return 0
	}
}

func noWake(t testing.TB, s *Subscription, during time.Duration) {
	t.Helper()
	select {
	case <-s.C():
		t.Fatal("woken, but should not have been")
	case <-time.After(during):
	}
}

func drain(s *Subscription) {
	select {
	case <-s.C():
	default:
	}
}

func forAgent(id string) func(Event) bool {
	return func(e Event) bool { return e.AgentID == id }
}

func publish(t testing.TB, d *db.DB, ev Event) {
	t.Helper()
	require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		return Publish(ctx, tx, ev)
	}))
}

func TestCommittedEventWakesOnlyMatchingSubscribers(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	mine, other := h.Subscribe(forAgent("code-web")), h.Subscribe(forAgent("code-api"))
	defer mine.Close()
	defer other.Close()

	publish(t, d, Event{Kind: KindMessage, OrgID: "default", ProjectID: "web", AgentID: "code-web"})
	took := waitWake(t, mine, 2*time.Second)
	t.Logf("woken %v after the commit returned", took)
	noWake(t, other, 200*time.Millisecond)
}

func TestRolledBackEventWakesNobody(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	s := h.Subscribe(nil)
	defer s.Close()

	boom := errors.New("roll back")
	err := d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		require.NoError(t, Publish(ctx, tx, Event{Kind: KindTask, ProjectID: "web"}))
		return boom
	})
	require.ErrorIs(t, err, boom)
	noWake(t, s, 300*time.Millisecond)

	publish(t, d, Event{Kind: KindTask, ProjectID: "web"})
	waitWake(t, s, 2*time.Second)
}

func TestWakesCoalesce(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	s := h.Subscribe(nil)
	defer s.Close()
	for range 5 {
		publish(t, d, Event{Kind: KindTask, TaskID: "t"})
	}
	waitWake(t, s, 2*time.Second)
	time.Sleep(250 * time.Millisecond) // every notification has arrived by now
	drain(s)                           // at most one more: the buffer holds one wake
	noWake(t, s, 100*time.Millisecond)
}

func TestEveryProcessHearsEveryCommit(t *testing.T) {
	d := pgtest.New(t)
	a, b := startHub(t, d, nil), startHub(t, d, nil)
	sa, sb := a.Subscribe(forAgent("x")), b.Subscribe(forAgent("x"))
	defer sa.Close()
	defer sb.Close()
	publish(t, d, Event{Kind: KindMessage, AgentID: "x"})
	waitWake(t, sa, 2*time.Second)
	waitWake(t, sb, 2*time.Second)
}

func TestUnreadablePayloadWakesEveryone(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	s := h.Subscribe(func(Event) bool { return false })
	defer s.Close()
	_, err := d.ExecContext(context.Background(), `SELECT pg_notify(?, 'not json')`, Channel)
	require.NoError(t, err)
	waitWake(t, s, 2*time.Second)
}

// killListeners terminates the LISTEN connections on d's database.
func killListeners(t *testing.T, d *db.DB) {
	t.Helper()
	var killed []bool
	require.NoError(t, d.NewRaw(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`).Scan(context.Background(), &killed))
	require.NotEmpty(t, killed, "no listener connection found")
}

func TestDroppedListenerReconnectsAndWakesEveryone(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	s := h.Subscribe(func(Event) bool { return false }) // only a resync can wake it
	defer s.Close()

	killListeners(t, d)
	took := waitWake(t, s, 5*time.Second)
	t.Logf("resync %v after the listener was killed", took)

	live := h.Subscribe(nil)
	defer live.Close()
	publish(t, d, Event{Kind: KindTask})
	waitWake(t, live, 2*time.Second)
}

func TestIdlePingsKeepTheListenerListening(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, func(h *Hub) { h.idlePing = 20 * time.Millisecond })
	s := h.Subscribe(nil)
	defer s.Close()
	time.Sleep(150 * time.Millisecond) // several idle pings
	drain(s)
	publish(t, d, Event{Kind: KindTask})
	waitWake(t, s, 2*time.Second)
}

func TestOneRunAtATime(t *testing.T) {
	d := pgtest.New(t)
	h := NewHub(d.ListenConfig(), nil)
	probe := h.Subscribe(nil)
	defer probe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	waitWake(t, probe, 10*time.Second)
	require.Error(t, h.Run(context.Background()), "a second concurrent Run")
	cancel()
	require.NoError(t, <-done)

	// After it returned (a supervisor restarting it), it runs again.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- h.Run(ctx) }()
	waitWake(t, probe, 10*time.Second)
	cancel()
	require.NoError(t, <-done)
}

func TestClosedSubscriptionsCostNothing(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	before := settledGoroutines(-1)
	for range 10_000 {
		h.Subscribe(nil).Close()
	}
	s := h.Subscribe(nil)
	s.Close()
	s.Close() // twice is fine
	require.Zero(t, h.Len())
	require.LessOrEqual(t, settledGoroutines(before), before)

	publish(t, d, Event{Kind: KindTask}) // nobody to wake; the hub keeps going
	live := h.Subscribe(nil)
	defer live.Close()
	publish(t, d, Event{Kind: KindTask})
	waitWake(t, live, 2*time.Second)
}

// settledGoroutines waits up to a second for the goroutine count to reach
// target (or to stop changing when target < 0) and returns it.
func settledGoroutines(target int) int {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if (target >= 0 && m <= target) || (target < 0 && m == n) {
			return m
		}
		n = m
	}
	return n
}

func TestNilHubSubscriptionsAreNeverWoken(t *testing.T) {
	var h *Hub
	s := h.Subscribe(nil)
	noWake(t, s, 20*time.Millisecond)
	s.Close()
	require.Zero(t, h.Len())
}
