package events

import (
	"context"
	"errors"
	"time"
)

// ErrNotYet is what a wait's check returns when something for the waiter
// has committed but may not be handed out yet, because an older
// transaction is still open (docs/events.md, "The cursor"). That
// transaction's end may wake nobody, so the wait checks again after
// notYetDelay instead of sleeping until the next wake.
var ErrNotYet = errors.New("events: not yet")

// notYetDelay is how soon a check that answered ErrNotYet runs again.
const notYetDelay = 20 * time.Millisecond

// A Wait is the waiter's contract (see the package documentation) as a
// value: NewWait subscribes and starts the deadline before anything is
// checked; Check and Run check the database, wait for a wake, the deadline
// or their context, and check again after each wake.
//
// Being a value, a wait can be prepared on one goroutine and run on
// another. The MCP transport prepares it where the tool's call runs, deep
// in the SDK's stack, and runs it on the HTTP request's goroutine near the
// top of its stack, so the thousands of goroutines that sit waiting keep
// small stacks (docs/benchmarks.md, "Held pact_events calls"). For the
// same reason neither check nor end should keep the context of the
// goroutine that prepared the wait: each is given the context of the one
// that runs it.
//
// A wait must be ended exactly once: by a Check that reports done, or by
// Run (also when check panics). A wait neither ends stays subscribed.
type Wait struct {
	sub   *Subscription
	timer *time.Timer
	check func(ctx context.Context) (bool, error)
	end   func(ctx context.Context) error
	// ended run after end, in order (OnEnd).
	ended []func()
	// checked: the last check found nothing, so Run waits before checking
	// again. A wake that came after that check is pending on sub's channel.
	checked bool
	// soon, when not nil, fires when a check that answered ErrNotYet is
	// due again.
	soon <-chan time.Time
	// guarded, when set (Guard), wakes the wait on a stop; changed then
	// says whether the waiter's standing changed.
	guarded *Subscription
	changed func(ctx context.Context) (bool, error)
}

// Guard makes the wait end early when stops wakes (a subscription to the
// stops that may concern the waiter: Event.StopsAgent) and changed then
// reports that the waiter's standing changed: Run returns nil at once, as
// when its check finds something, and the caller answers from what the
// waiter may do now (a refusal, when it may do nothing). Between stops the
// wait runs as before. The wait takes stops over and closes it when it
// ends. Subscribe stops before the waiter's standing is first read, so no
// stop falls between; call Guard before the wait is checked or run.
func (w *Wait) Guard(stops *Subscription, changed func(ctx context.Context) (bool, error)) {
	w.guarded, w.changed = stops, changed
}

// checkOnce runs check, turning ErrNotYet into "nothing yet, look again
// soon".
func (w *Wait) checkOnce(ctx context.Context) (bool, error) {
	ok, err := w.check(ctx)
	w.soon = nil
	if errors.Is(err, ErrNotYet) {
		w.soon = time.After(notYetDelay)
		return false, nil
	}
	return ok, err
}

// NewWait subscribes to the events match accepts (as Subscribe) and starts
// a deadline of d. check reads the database and says whether there is
// something for the waiter; end, if not nil, runs once when the wait ends,
// with the runner's context stripped of its cancelation (it undoes what
// preparing the wait did, such as marking the agent listening), and its
// error is the wait's when the wait had none. A nil Hub gives a wait no
// event wakes: it ends by its check or its deadline.
func (h *Hub) NewWait(match func(Event) bool, d time.Duration, check func(context.Context) (bool, error),
	end func(context.Context) error) *Wait {
	return &Wait{sub: h.Subscribe(match), timer: time.NewTimer(d), check: check, end: end}
}

// Check checks once. done reports that the wait is over, because check
// found something or failed (err), or the deadline has passed; the wait
// has then ended. Otherwise the wait goes on, and Run continues it.
func (w *Wait) Check(ctx context.Context) (done bool, err error) {
	done = true
	defer func() {
		if done {
			err = w.finish(ctx, err)
		}
	}()
	ok, err := w.checkOnce(ctx)
	if !ok && err == nil {
		select {
		case <-w.timer.C:
		default:
			w.checked, done = true, false
		}
	}
	return done, err
}

// Run checks (unless the last Check found nothing), then waits for a wake,
// the deadline or ctx, and checks again after each wake. It returns nil
// when check finds something or the deadline passes, check's error, or
// ctx's error when ctx ends first; the wait has ended.
func (w *Wait) Run(ctx context.Context) (err error) {
	defer func() { err = w.finish(ctx, err) }()
	for {
		if !w.checked {
			if ok, err := w.checkOnce(ctx); err != nil || ok {
				return err
			}
		}
		w.checked = false
		var stopped <-chan struct{}
		if w.guarded != nil {
			stopped = w.guarded.C()
		}
		select {
		case <-stopped:
			if changed, err := w.changed(ctx); err != nil || changed {
				return err
			}
			w.checked = true // nothing for the waiter came with the stop
		case <-w.sub.C():
		case <-w.soon:
		case <-w.timer.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// OnEnd adds f to what runs when the wait ends (after end), such as
// giving back a slot the waiter took. Call it before the wait is checked
// or run.
func (w *Wait) OnEnd(f func()) { w.ended = append(w.ended, f) }

// finish ends the wait and returns err, or end's error when err is nil.
func (w *Wait) finish(ctx context.Context, err error) error {
	w.timer.Stop()
	w.sub.Close()
	if w.guarded != nil {
		w.guarded.Close()
	}
	defer func() {
		for _, f := range w.ended {
			f()
		}
	}()
	if w.end != nil {
		if endErr := w.end(context.WithoutCancel(ctx)); err == nil {
			err = endErr
		}
	}
	return err
}
