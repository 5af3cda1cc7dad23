package board

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/sdk/errs"
)

// How a following of a remote task waits, keeps its claim, retries an
// unreachable remote and ends (docs/a2a.md, "Remote agents").

// errLeaseLost ends a following another board process took over: the
// remote task goes on, followed by that one.
var errLeaseLost = errors.New("another board follows the task now")

// remoteFailure is why the remote agent cannot do the task: it refused a
// call, answered what is not A2A, or stayed unreachable past giveUp. The
// task fails with it.
type remoteFailure struct{ err error }

func (f *remoteFailure) Error() string { return f.err.Error() }
func (f *remoteFailure) Unwrap() error { return f.err }

// wait returns when the remote task known may have changed: an event of
// its stream that says so when the remote streams, else after a poll
// period; at most a window, after which the lease is renewed and a
// heartbeat sent when due. A stop that may concern the agent sends the
// heartbeat at once, whose refusal ends the following.
func (r *remoteRun) wait(ctx context.Context, known *a2a.Task) error {
	d := r.m.remote
	wctx, cancel := context.WithTimeout(ctx, d.window())
	defer cancel()
	stopped := make(chan bool, 1)
	go func() {
		select {
		case <-r.stop.C():
			stopped <- true
			cancel()
		case <-wctx.Done():
			stopped <- false
		}
	}()
	streamed := false
	if r.card.Capabilities.Streaming {
		moved := false
		err := r.client.SubscribeToTask(wctx, known.ID, func(ev a2a.StreamResponse) bool {
			moved = changed(known, ev)
			return !moved
		})
		var refused *a2a.Error
		// A refused stream is mostly a task that closed since it was read:
		// it is read again at once, unless the last stream was refused too.
		// A stream that ended with nothing new is no reason to read it now.
		streamed = moved || wctx.Err() != nil || errors.As(err, &refused) && !r.refusedStream
		r.refusedStream = refused != nil
	}
	if !streamed { // no stream, it failed or said nothing: read the task after a poll period
		t := time.NewTimer(d.poll)
		select {
		case <-wctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	cancel()
	return r.keepAlive(ctx, <-stopped)
}

// changed says whether a stream event may change the report: a new status
// (or a task snapshot whose status is not known's), or a message. An
// artifact comes before the status that closes the task.
func changed(known *a2a.Task, ev a2a.StreamResponse) bool {
	switch {
	case ev.StatusUpdate != nil, ev.Message != nil:
		return true
	case ev.Task != nil:
		return ev.Task.Status.State != known.Status.State || statusMark(ev.Task) != statusMark(known)
	}
	return false
}

// heartbeatDue says whether the next heartbeat is due at now: half a beat
// after the last, so that one lands within every beat even when a wait
// ends a window late.
func (r *remoteRun) heartbeatDue(now time.Time) bool {
	return now.Sub(r.beaten) >= r.m.remote.beat/2
}

// keepAlive renews the lease, and sends the board a heartbeat when one is
// due or force (a stop may have come): its refusal means the agent may go
// on no more.
func (r *remoteRun) keepAlive(ctx context.Context, force bool) error {
	ok, err := r.m.svc.st.renewRemoteLease(ctx, r.m.db, r.t.ID, r.m.remote.follower, r.m.remote.lease)
	switch {
	case err != nil:
		return err
	case !ok:
		return errLeaseLost
	case !force && !r.heartbeatDue(time.Now()):
		return nil
	}
	r.beaten = time.Now()
	return r.tool(ctx, "pact_report", map[string]any{"task_id": r.t.ID, "status": "working", "mandate_id": r.mandate})
}

// retry calls f, each call at most the driver's call timeout, until it
// succeeds, fails for good, or the remote has been unreachable for giveUp,
// keeping the lease and the claim alive meanwhile.
func (r *remoteRun) retry(ctx context.Context, f func(context.Context) error) error {
	d := r.m.remote
	return retryRemote(ctx, d.backoff, d.giveUp, func(ctx context.Context) error {
		cctx, cancel := context.WithTimeout(ctx, d.call)
		defer cancel()
		return f(cctx)
	}, func(ctx context.Context) error { return r.keepAlive(ctx, r.stopped()) })
}

// stopped says whether a stop that may concern the agent came since the
// last look.
func (r *remoteRun) stopped() bool {
	select {
	case <-r.stop.C():
		return true
	default:
		return false
	}
}

// retryRemote calls f until it succeeds or fails for good (a2a.Transient
// says which failures may pass), waiting first, then twice as long each
// time up to 30 s, and calling keepAlive after each wait, whose error ends
// it. Past giveUp from the first call, it makes one last call and gives up.
// A failure of the remote's is a *remoteFailure.
func retryRemote(ctx context.Context, first, giveUp time.Duration, f, keepAlive func(context.Context) error) error {
	until, wait := time.Now().Add(giveUp), first
	for {
		err := f(ctx)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case !a2a.Transient(err):
			return &remoteFailure{err}
		case !time.Now().Before(until):
			return &remoteFailure{fmt.Errorf("the remote agent could not be reached for %s: %w", giveUp, err)}
		}
		t := time.NewTimer(min(wait, time.Until(until)))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 30*time.Second)
		if err := keepAlive(ctx); err != nil {
			return err
		}
	}
}

// end ends a following that cannot go on, as why says. The board stopping,
// or another process following the task, leaves the remote task alone;
// a refusal of the agent's call (a stop: the kill switch, a pause, a
// revoked mandate; claim_lost) cancels the remote task (best effort) and
// reports nothing; the remote's failure fails the task with it. Anything
// else (the database) is returned: the task is taken up again.
func (r *remoteRun) end(ctx context.Context, remoteID string, why error) error {
	var failure *remoteFailure
	switch {
	case ctx.Err() != nil, errors.Is(why, errLeaseLost):
		return why
	case errors.As(why, &failure):
		return errors.Join(why, r.fail(ctx, "the remote agent "+r.w.AgentID+" could not do it: "+failure.Error()))
	case errs.IsRefusal(why) && remoteID != "" && r.client != nil:
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.m.remote.call)
		defer cancel()
		if _, err := r.client.CancelTask(cctx, remoteID); err != nil {
			return errors.Join(why, fmt.Errorf("cancel the remote task %s: %w", remoteID, err))
		}
	}
	return why
}

// fail reports the task failed, saying why.
func (r *remoteRun) fail(ctx context.Context, why string) error {
	why = clipText(why, 2000, "")
	return r.tool(ctx, "pact_report", map[string]any{"task_id": r.t.ID, "status": "failed", "mandate_id": r.mandate,
		"result": map[string]any{"text": why, "handoff": "- Done: nothing: " + why + "\n- Needs a human: check the remote agent " +
			r.w.AgentID + " and post the task again"}})
}
