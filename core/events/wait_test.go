package events

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

// probe is a wait's check and end: check finds something once ready is
// set; end counts its calls and remembers whether its context was live.
type probe struct {
	ready, checks, ends atomic.Int32
	endCtxLive          atomic.Bool
	endErr              error
}

func (p *probe) check(context.Context) (bool, error) {
	p.checks.Add(1)
	return p.ready.Load() == 1, nil
}

func (p *probe) end(ctx context.Context) error {
	p.ends.Add(1)
	p.endCtxLive.Store(ctx.Err() == nil)
	return p.endErr
}

func runAsync(ctx context.Context, w *Wait) <-chan error {
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	return done
}

func TestAWaitReturnsWhenAWakeFindsSomething(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	p := &probe{}
	w := h.NewWait(forAgent("code-web"), 10*time.Second, p.check, p.end)
	done := runAsync(context.Background(), w)
	require.Eventually(t, func() bool { return p.checks.Load() == 1 }, 2*time.Second, time.Millisecond)

	publish(t, d, Event{Kind: KindMessage, AgentID: "code-api"}) // not ours: no re-check
	p.ready.Store(1)
	publish(t, d, Event{Kind: KindMessage, AgentID: "code-web"})
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the wake did not end the wait")
	}
	require.EqualValues(t, 2, p.checks.Load())
	require.EqualValues(t, 1, p.ends.Load())
	require.Zero(t, h.Len(), "the wait's subscription is closed")
}

// A wait checked on one goroutine and run on another misses nothing: a
// commit between the two is a wake pending for Run.
func TestAWaitCheckedThenRunMissesNothing(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	p := &probe{}
	w := h.NewWait(nil, 10*time.Second, p.check, p.end)
	done, err := w.Check(context.Background())
	require.NoError(t, err)
	require.False(t, done)
	require.Zero(t, p.ends.Load())

	p.ready.Store(1)
	publish(t, d, Event{Kind: KindTask})
	require.Eventually(t, func() bool { return len(w.sub.C()) == 1 }, 2*time.Second, time.Millisecond)
	require.NoError(t, w.Run(context.Background()))
	require.EqualValues(t, 2, p.checks.Load(), "Run checks after the wake, not before waiting")
	require.EqualValues(t, 1, p.ends.Load())
}

func TestACheckThatFindsSomethingEndsTheWait(t *testing.T) {
	var h *Hub // no hub: only the check and the deadline end it
	p := &probe{}
	p.ready.Store(1)
	w := h.NewWait(nil, time.Minute, p.check, p.end)
	done, err := w.Check(context.Background())
	require.NoError(t, err)
	require.True(t, done)
	require.EqualValues(t, 1, p.ends.Load())

	// So does a check after the deadline, and one that fails.
	p = &probe{}
	w = h.NewWait(nil, 0, p.check, p.end)
	time.Sleep(time.Millisecond)
	done, err = w.Check(context.Background())
	require.NoError(t, err)
	require.True(t, done)
	require.EqualValues(t, 1, p.ends.Load())

	boom := errors.New("database down")
	w = h.NewWait(nil, time.Minute, func(context.Context) (bool, error) { return false, boom }, nil)
	done, err = w.Check(context.Background())
	require.ErrorIs(t, err, boom)
	require.True(t, done)
}

func TestAWaitEndsByItsDeadline(t *testing.T) {
	var h *Hub
	p := &probe{}
	start := time.Now()
	require.NoError(t, h.NewWait(nil, 50*time.Millisecond, p.check, p.end).Run(context.Background()))
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
	require.EqualValues(t, 1, p.checks.Load())
	require.EqualValues(t, 1, p.ends.Load())
}

// When its client goes away the wait ends with the context's error, and
// still undoes what preparing it did, with a context that is not canceled.
func TestAWaitEndsWithItsContext(t *testing.T) {
	d := pgtest.New(t)
	h := startHub(t, d, nil)
	p := &probe{}
	ctx, cancel := context.WithCancel(context.Background())
	done := runAsync(ctx, h.NewWait(nil, time.Minute, p.check, p.end))
	require.Eventually(t, func() bool { return p.checks.Load() == 1 }, 2*time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end with its context")
	}
	require.EqualValues(t, 1, p.ends.Load())
	require.True(t, p.endCtxLive.Load())
	require.Zero(t, h.Len())
}

// end's error is the wait's when the wait had none; the wait's own error
// comes first.
func TestTheEndsErrorIsReported(t *testing.T) {
	var h *Hub
	stuck := errors.New("cannot stop listening")
	p := &probe{endErr: stuck}
	require.ErrorIs(t, h.NewWait(nil, 0, p.check, p.end).Run(context.Background()), stuck)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p = &probe{endErr: stuck}
	require.ErrorIs(t, h.NewWait(nil, time.Minute, p.check, p.end).Run(ctx), context.Canceled)
}

// A check that answers ErrNotYet (something committed but held back by an
// older open transaction, whose end may wake nobody) is checked again soon
// without any wake, both after Check and within Run; it is no error.
func TestAWaitLooksAgainSoonAfterNotYet(t *testing.T) {
	var h *Hub // no hub: no wake can come
	var calls atomic.Int32
	check := func(context.Context) (bool, error) {
		if calls.Add(1) < 3 {
			return false, ErrNotYet
		}
		return true, nil
	}
	w := h.NewWait(nil, time.Minute, check, nil)
	done, err := w.Check(context.Background())
	require.NoError(t, err)
	require.False(t, done)
	start := time.Now()
	require.NoError(t, w.Run(context.Background()))
	require.EqualValues(t, 3, calls.Load())
	require.Less(t, time.Since(start), 30*time.Second, "ended by the re-checks, not by the minute's deadline")
}
