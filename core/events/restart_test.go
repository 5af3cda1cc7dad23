package events

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgcluster"
)

// TestHubResyncsAfterAServerRestart (REL-020): when PostgreSQL itself
// restarts, fast or immediate, the hub reconnects by itself and wakes every
// subscriber, even one no event matches, so held waits check again for what
// was committed while nothing listened; notifications flow again after.
// The cluster is the test's own: stopping it disturbs no other test.
func TestHubResyncsAfterAServerRestart(t *testing.T) {
	ctx := context.Background()
	pg, err := pgcluster.StartThrowaway(ctx)
	require.NoError(t, err)
	t.Cleanup(pg.Destroy)
	d, err := db.Open(ctx, pg.DSN("postgres"))
	require.NoError(t, err)
	t.Cleanup(d.Close)
	h := startHub(t, d, nil)
	s := h.Subscribe(func(Event) bool { return false }) // only a resync can wake it
	defer s.Close()

	for _, mode := range []string{"fast", "immediate"} {
		drain(s)
		require.NoError(t, pg.Restart(ctx, mode))
		took := waitWake(t, s, 10*time.Second)
		t.Logf("-m %s: every subscriber woken %v after the server was back", mode, took)

		live := h.Subscribe(nil)
		deadline := time.Now().Add(10 * time.Second)
		for { // the pool's connections died with the server; the next ones are new
			if err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { return Publish(ctx, tx, Event{Kind: KindTask}) }); err == nil {
				break
			}
			require.True(t, time.Now().Before(deadline), "the pool did not recover")
			time.Sleep(50 * time.Millisecond)
		}
		waitWake(t, live, 5*time.Second)
		live.Close()
	}
}
