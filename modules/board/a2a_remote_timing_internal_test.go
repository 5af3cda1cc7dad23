package board

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The remote driver times its work by the claim lease stale
// (PACT_STALE_MINUTES), as newRemoteDriver's comment and docs/a2a.md
// ("Remote agents") say: a heartbeat every third of the lease, at most
// every 5 minutes; an unreachable remote retried for half of it, first
// after a second, each call bounded by 30 s; a remote that does not stream
// read every two seconds; its own follower lease a minute; and a wait on a
// remote task at most a window of min(beat/2, lease/3), so that the lease
// is renewed and the heartbeat sent in time. Each stale value exercises a
// different bound: 30 minutes the 5-minute cap on the heartbeat and the
// follower lease bounding the window, 6 minutes a heartbeat of a third of
// stale, 1 minute a window bounded by half the heartbeat. These periods
// are minutes long, so they are checked here rather than waited for.
func TestTheRemoteDriverTimesItsWorkByTheStaleLease(t *testing.T) {
	cases := []struct{ stale, beat, giveUp, window time.Duration }{
		{30 * time.Minute, 5 * time.Minute, 15 * time.Minute, 20 * time.Second},
		{6 * time.Minute, 2 * time.Minute, 3 * time.Minute, 20 * time.Second},
		{time.Minute, 20 * time.Second, 30 * time.Second, 10 * time.Second},
	}
	for _, c := range cases {
		d := newRemoteDriver(nil, nil, c.stale)
		require.Equal(t, c.beat, d.beat, "the heartbeat under a lease of %s", c.stale)
		require.Equal(t, c.giveUp, d.giveUp, "how long an unreachable remote is retried under a lease of %s", c.stale)
		require.Equal(t, c.window, d.window(), "the longest wait under a lease of %s", c.stale)
		require.Equal(t, time.Minute, d.lease, "the follower's lease")
		require.Equal(t, 2*time.Second, d.poll, "a remote that does not stream is read every two seconds")
		require.Equal(t, time.Second, d.backoff, "the first retry comes after a second")
		require.Equal(t, 30*time.Second, d.call, "a call to the remote is bounded by 30 s")
	}
}
