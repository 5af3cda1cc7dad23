package kernel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// An agent holds at most MaxWaitsPerAgent waits at once, the bound
// included; another agent's count is its own; a slot given back (once,
// however often its release is called) can be taken again; the total is
// the sum, and an agent holding none is forgotten.
func TestWaitSlotsCapEachAgent(t *testing.T) {
	var s waitSlots
	var releases []func()
	for range MaxWaitsPerAgent {
		release, err := s.take("code-web", "pact_events")
		require.NoError(t, err)
		releases = append(releases, release)
	}
	_, err := s.take("code-web", "pact_wait")
	require.Equal(t, errs.RateLimited, errs.CodeOf(err))
	require.ErrorContains(t, err, "agent code-web already has 4 calls waiting (pact_wait, pact_events), the most one agent "+
		"may hold at once; let one of them end, or cancel it, before calling pact_wait again")
	other, err := s.take("code-api", "pact_events")
	require.NoError(t, err, "another agent's slots are its own")
	require.Equal(t, MaxWaitsPerAgent+1, s.count())

	releases[0]()
	releases[0]() // once, however often
	require.Equal(t, MaxWaitsPerAgent, s.count())
	require.Equal(t, MaxWaitsPerAgent-1, s.held["code-web"])
	again, err := s.take("code-web", "pact_events")
	require.NoError(t, err, "a slot given back is taken again")
	_, err = s.take("code-web", "pact_events")
	require.Equal(t, errs.RateLimited, errs.CodeOf(err))

	for _, release := range append(releases[1:], again, other) {
		release()
	}
	require.Zero(t, s.count())
	require.Empty(t, s.held, "an agent holding no wait is forgotten")
}

// A worker that keeps failing is restarted after a delay that doubles from
// the least to the most: in 400 ms from 10 ms (10, 20, 40, 80, 160, 160)
// it runs about six times, never dozens.
func TestAFailingWorkersDelayDoubles(t *testing.T) {
	k := New(Deps{})
	k.backoffMin, k.backoffMax = 10*time.Millisecond, 160*time.Millisecond
	var runs atomic.Int32
	require.NoError(t, k.Register(workerModule{func(context.Context) error {
		runs.Add(1)
		return errors.New("still down")
	}}))
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	require.NoError(t, k.Run(ctx))
	require.GreaterOrEqual(t, runs.Load(), int32(3), "it was restarted")
	require.LessOrEqual(t, runs.Load(), int32(10), "each restart waited twice as long as the one before, up to the most")
}
