package notify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
)

// A delivery worker leases what it delivers under the process's name and
// its own number, counted from one as the log counts them
// (notify.deliver1): the lease names the worker holding it.
func TestADeliveryWorkerLeasesUnderItsNumberFromOne(t *testing.T) {
	w := newWorld(t)
	stuck := &hanging{entered: make(chan string, 1), release: make(chan error), honour: true}
	p := startProcess(w, map[string]string{"PACT_SLACK_WEBHOOK_URL": envSlack}, notify.Options{Notifiers: plugins{"slack": stuck}, Workers: 1})
	id := enqueue(t, w.DB, outbox.Notification{Kind: outbox.Question, ProjectID: "web", Title: "Which colour?"})
	select {
	case <-stuck.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker never started the delivery")
	}
	owner := state(t, w.DB, id).LeaseOwner
	require.NotNil(t, owner)
	require.True(t, strings.HasSuffix(*owner, "/w1"), "leased by %s", *owner)
	p.Stop()
}

// After a round, a delivery worker sleeps until the next row is due, at
// least 20 ms (a row another worker is claiming at this instant is looked
// at again shortly, never in a tight loop) and at most Tick.
func TestAnIdleWorkerSleepsUntilTheNextRowIsDueWithinItsBounds(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	svc := notify.NewService(w.DB, nil, &notify.Options{Tick: time.Minute})
	wait, err := svc.Round(ctx, "w1")
	require.NoError(t, err)
	require.Equal(t, time.Minute, wait, "a round with nothing pending sleeps Tick")

	id := enqueue(t, w.DB, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	wait, err = svc.NextDue(ctx)
	require.NoError(t, err)
	require.Equal(t, 20*time.Millisecond, wait, "a row due now")

	w.Exec(`UPDATE notifications SET next_attempt_at = now() + interval '30 seconds' WHERE id = ?`, id)
	wait, err = svc.Round(ctx, "w1")
	require.NoError(t, err)
	require.InDelta(t, 30*time.Second, wait, float64(5*time.Second), "a round sleeps until a row due in 30 s")
	require.Zero(t, state(t, w.DB, id).Attempts, "the round did not take the row before it was due")

	w.Exec(`UPDATE notifications SET next_attempt_at = now() + interval '1 hour' WHERE id = ?`, id)
	wait, err = svc.NextDue(ctx)
	require.NoError(t, err)
	require.Equal(t, time.Minute, wait, "a row due in an hour: Tick")
}

// The outbox listener, when it loses its connection, reconnects after
// 100 ms, and after each failed attempt waits twice as long (up to 5 s):
// here the database refuses new connections while its connection is cut.
// Each warning says why the connection was lost.
func TestTheListenerReconnectsAfterADoublingDelay(t *testing.T) {
	ctx := context.Background()
	w, logs := runLogged(t, notify.Options{Notifiers: plugins{}}, nil)
	listener := func() int {
		return w.Count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN ' || ?`, outbox.Channel)
	}
	eventually(t, 10*time.Second, func() bool { return listener() == 1 }, "the listener listens")

	// A database cannot refuse connections to itself: another one of the
	// cluster's says so.
	cfg, err := pgx.ParseConfig(w.DSN)
	require.NoError(t, err)
	db := cfg.Database
	cfg.Database = "postgres"
	admin, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)
	allow := func(on bool) {
		_, err := admin.Exec(context.Background(), fmt.Sprintf(`ALTER DATABASE %q ALLOW_CONNECTIONS %t`, db, on))
		require.NoError(t, err)
	}
	t.Cleanup(func() { allow(true); _ = admin.Close(context.Background()) })
	allow(false)
	w.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN ' || ?`, outbox.Channel)
	eventually(t, 10*time.Second, func() bool { return strings.Count(logs.String(), lost) >= 3 }, "three lost connections: %s", logs.String())
	var delays []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, lost) {
			_, in, _ := strings.Cut(strings.TrimSpace(line), " in=")
			delays = append(delays, in)
		}
	}
	require.Equal(t, []string{"100ms", "200ms", "400ms"}, delays[:3])
	require.Contains(t, logs.Line(lost), "terminating connection due to administrator command", "the warning says why")

	allow(true)
	eventually(t, 10*time.Second, func() bool { return listener() == 1 }, "the listener listens again")
}

const lost = "outbox listener lost its connection; reconnecting"

// An idle listener pings its connection after each Options.ListenIdle and,
// finding it alive, keeps it: the same connection pings again, and nothing
// is logged.
func TestAnIdleListenerPingsItsConnectionAndKeepsIt(t *testing.T) {
	w, logs := runLogged(t, notify.Options{Notifiers: plugins{}, ListenIdle: 100 * time.Millisecond}, nil)
	// The listener's connection shows its LISTEN only until its first ping,
	// 100 ms later: a poll on a loaded machine may come after that, so the
	// pings alone say which connection it is. Nothing else of this board
	// pings a connection twice (the events hub waits 30 s; the pool pings
	// once when it opens), and two pings of one connection at two
	// different starts are two pings it kept the connection through.
	type ping struct {
		Pid   int       `bun:"pid"`
		Start time.Time `bun:"query_start"`
	}
	first := map[int]time.Time{}
	eventually(t, 10*time.Second, func() bool {
		var pings []ping
		require.NoError(t, w.DB.NewRaw(`SELECT pid, query_start FROM pg_stat_activity WHERE datname = current_database() AND query = '-- ping'`).
			Scan(context.Background(), &pings))
		for _, p := range pings {
			if at, seen := first[p.Pid]; !seen {
				first[p.Pid] = p.Start
			} else if p.Start.After(at) {
				return true
			}
		}
		return false
	}, "the listener pings the same connection again and again when idle")
	require.False(t, logs.Contains(lost), "a connection that answers its ping is kept: %s", logs.String())
}
