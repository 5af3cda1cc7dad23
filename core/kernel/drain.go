package kernel

import (
	"context"
	"errors"
	"net/http"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/sdk/errs"
)

// A board that is told to stop (SIGTERM) first drains: /readyz answers 503
// so load balancers send new calls elsewhere, and every call held open
// (pact_wait, pact_events, the pact stream) is answered at once, telling
// its client to call again, while /healthz stays 200 and other calls are
// still served. Only then does the HTTP server shut down, so no held call
// is cut off by the shutdown deadline (docs/operations.md, "Running
// several boards"; REL-001).

// DrainMessage is what /readyz says while the board drains.
const DrainMessage = "this board is shutting down; send new calls to another board"

// errDraining is the cause of a held wait's context ended by the drain.
var errDraining = errors.New("kernel: the board is draining")

// drain is the board's draining state: ctx ends when draining starts. A
// context rather than a bare channel, so a wait's context can end with it
// (context.AfterFunc) without a goroutine per held call.
type drain struct {
	ctx   context.Context
	start context.CancelFunc
}

func newDrain() *drain {
	ctx, cancel := context.WithCancel(context.Background())
	return &drain{ctx: ctx, start: cancel}
}

// draining reports whether draining has started; a nil drain never drains
// (a registry built by NewTools alone, in tests).
func (d *drain) draining() bool { return d != nil && d.ctx.Err() != nil }

// done is closed when draining starts; nil (never) for a nil drain.
func (d *drain) done() <-chan struct{} {
	if d == nil {
		return nil
	}
	return d.ctx.Done()
}

// run runs w until it ends by itself or draining starts. A wait ended by
// the drain ends like one whose deadline passed (nil): the call then
// answers what there is, with Call.Draining set, and the client calls
// again on another board. A wait started while draining ends at once.
func (d *drain) run(ctx context.Context, w *events.Wait) error {
	if d == nil {
		return w.Run(ctx)
	}
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if d.draining() { // AfterFunc would cancel on a goroutine of its own, a little later
		cancel(errDraining)
	}
	stop := context.AfterFunc(d.ctx, func() { cancel(errDraining) })
	defer stop()
	err := w.Run(wctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(wctx), errDraining) {
		return nil
	}
	return err
}

// Drain starts draining: /readyz answers 503 from now on and every held
// call is answered early with its reconnect flag. It is safe to call more
// than once; there is no way back, as the process is about to stop.
func (k *Kernel) Drain() {
	k.logger.Info("draining: /readyz answers 503 and held calls are answered")
	k.drain.start()
}

// Draining is closed once the board drains: a module's handler that holds
// a request open (a stream) selects on it to end early.
func (k *Kernel) Draining() <-chan struct{} { return k.drain.done() }

// Draining is closed once the board drains (Kernel.Drain).
func (h *Host) Draining() <-chan struct{} { return h.k.Draining() }

// notReadyWhileDraining answers /readyz while the board drains.
func (k *Kernel) notReadyWhileDraining(w http.ResponseWriter) bool {
	if !k.drain.draining() {
		return false
	}
	WriteError(w, http.StatusServiceUnavailable, errs.E(errs.Unavailable, "%s", DrainMessage))
	return true
}

// FlushSeen writes the last_seen stamps of the calls that committed in the
// last second (identity.Service.Seen), as the board stops.
func (k *Kernel) FlushSeen(ctx context.Context) error {
	if k.deps.Identity == nil {
		return nil
	}
	return k.deps.Identity.FlushSeen(ctx)
}
