package kernel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
)

// A draining board leaves /readyz at once and stays alive on /healthz: a
// load balancer stops routing to it while the process still serves.
func TestDrainTurnsReadyzBeforeHealthz(t *testing.T) {
	k := kernel.New(kernel.Deps{DB: pgtest.New(t)})
	h := k.Handler()
	code, _ := do(t, h, "GET", "/readyz", "")
	require.Equal(t, http.StatusOK, code)
	select {
	case <-k.Draining():
		t.Fatal("a new kernel is not draining")
	default:
	}

	k.Drain()
	k.Drain() // a second SIGTERM changes nothing
	code, body := do(t, h, "GET", "/readyz", "")
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, map[string]any{"error": "unavailable", "message": kernel.DrainMessage}, body)
	code, body = do(t, h, "GET", "/healthz", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"ok": true}, body)
	select {
	case <-k.Draining():
	default:
		t.Fatal("Draining is closed once the kernel drains")
	}
}

// drainFixture is waitFixture on a kernel's registry, which drains with it.
func drainFixture(t *testing.T) (*kernel.Kernel, *waitTool) {
	d, _ := toolFixture(t)
	k := kernel.New(kernel.Deps{DB: d, Log: ledger.New(nil)})
	w := &waitTool{}
	tool := w.tool()
	run := tool.Run
	tool.Run = func(ctx context.Context, c *kernel.Call) (any, error) {
		out, err := run(ctx, c)
		return map[string]any{"out": out, "draining": c.Draining}, err
	}
	require.NoError(t, k.Tools().Add(tool))
	return k, w
}

// A held wait ends when the board drains, as if its deadline had passed:
// the call answers normally, told it is draining; one that starts while
// draining answers at once. Both where the call runs and with a Holder.
func TestDrainAnswersHeldWaitsEarly(t *testing.T) {
	k, w := drainFixture(t)
	args := json.RawMessage(`{"ms": 60000}`)
	type answer struct {
		out any
		err error
	}
	direct := make(chan answer, 1)
	go func() {
		out, err := k.Tools().Call(context.Background(), "code-web", "demo_wait", args)
		direct <- answer{out, err}
	}()
	h := &kernel.Holder{}
	_, err := k.Tools().Call(kernel.WithHolder(context.Background(), h), "code-web", "demo_wait", args)
	require.ErrorIs(t, err, kernel.ErrHeld)
	held := make(chan error, 1)
	go func() { held <- h.Run(context.Background()) }()

	require.Eventually(t, func() bool { return w.checks.Load() >= 2 }, 10*time.Second, 10*time.Millisecond,
		"both calls checked once and wait")
	k.Drain()
	want := map[string]any{"out": map[string]bool{"ready": false}, "draining": true}
	select {
	case a := <-direct:
		require.NoError(t, a.err)
		require.Equal(t, want, a.out)
	case <-time.After(10 * time.Second):
		t.Fatal("a wait running where its call runs did not end when the board drained")
	}
	select {
	case err := <-held:
		require.NoError(t, err, "a drained wait ends as if its deadline passed")
	case <-time.After(10 * time.Second):
		t.Fatal("a held wait did not end when the board drained")
	}
	tool, _ := h.Held()
	out, err := k.Tools().Call(kernel.Waited(context.Background(), tool, nil), "code-web", "demo_wait", args)
	require.NoError(t, err)
	require.Equal(t, want, out)

	started := time.Now()
	out, err = k.Tools().Call(context.Background(), "code-web", "demo_wait", args)
	require.NoError(t, err)
	require.Equal(t, want, out)
	require.Less(t, time.Since(started), 10*time.Second, "a wait that starts while draining ends at once")
	require.EqualValues(t, 3, w.ends.Load(), "every wait ended once")
}
