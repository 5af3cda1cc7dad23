package kernel

import (
	"context"
	"errors"
	"sync"

	"github.com/pactboard/pact/core/events"
)

// A tool's Wait phase may block for 50 s, and where it blocks decides what
// the wait costs: a goroutine keeps the stack it is parked on. A transport
// that can park a call at a shallower point than the one Tools.Call runs on
// asks for the wait with WithHolder, runs it there, then calls again with
// Waited (docs/benchmarks.md, "Held pact_events calls").

// ErrHeld is what Tools.Call returns, having done nothing else, when the
// call's context has a Holder and its wait must block: the Holder now has
// the wait. It is neither a refusal nor logged.
var ErrHeld = errors.New("kernel: the call's wait was handed to its transport")

// A Holder takes the wait of the call made with WithHolder's context.
type Holder struct {
	mu    sync.Mutex
	tool  string
	wait  *events.Wait
	drain *drain
}

type holderKey struct{}

// WithHolder returns ctx with h: a call of a tool with a Wait phase made
// with it prepares its wait and checks once, as always; if it must then
// block, it returns ErrHeld and h has the wait. The caller must then Run
// the wait (with its own context), and call again with Waited and the same
// arguments.
func WithHolder(ctx context.Context, h *Holder) context.Context {
	return context.WithValue(ctx, holderKey{}, h)
}

// Held returns the tool whose wait h took, and the wait; a nil wait when
// it took none.
func (h *Holder) Held() (tool string, w *events.Wait) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tool, h.wait
}

// Run runs the wait h took, with ctx, until it ends by itself or the board
// drains (Kernel.Drain): a wait ended by the drain returns nil, as if its
// deadline had passed, so the call answers at once with its reconnect flag.
func (h *Holder) Run(ctx context.Context) error {
	h.mu.Lock()
	w, d := h.wait, h.drain
	h.mu.Unlock()
	return d.run(ctx, w)
}

type waitedKey struct{}

type waited struct {
	tool string
	err  error
}

// Waited returns ctx saying that the Wait phase of a call of tool has run
// and ended with err (Wait.Run's result): a call of tool made with it goes
// straight to its transaction, or to the refusal or the error err is.
func Waited(ctx context.Context, tool string, err error) context.Context {
	return context.WithValue(ctx, waitedKey{}, waited{tool: tool, err: err})
}

// waitedFor returns what Waited recorded for a call of tool, if anything.
func waitedFor(ctx context.Context, tool string) (waited, bool) {
	w, ok := ctx.Value(waitedKey{}).(waited)
	return w, ok && w.tool == tool
}

// hold runs w, or hands it to the call's Holder once a first check found
// nothing. A Holder takes one wait: a second call with its context (none
// the MCP transport makes) waits where it runs. Either way the wait ends
// early when the board drains (d).
func hold(ctx context.Context, tool string, w *events.Wait, d *drain) error {
	h, _ := ctx.Value(holderKey{}).(*Holder)
	if h == nil {
		return d.run(ctx, w)
	}
	if done, err := w.Check(ctx); done {
		return err
	}
	h.mu.Lock()
	taken := h.wait == nil
	if taken {
		h.tool, h.wait, h.drain = tool, w, d
	}
	h.mu.Unlock()
	if !taken {
		return d.run(ctx, w)
	}
	return ErrHeld
}
