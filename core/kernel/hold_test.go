package kernel_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// waitTool has a Wait phase that waits (no hub: until its deadline) for
// ready, refuses when asked to, and counts its preparations, checks and
// ends; its body counts its runs.
type waitTool struct {
	ready                        atomic.Bool
	prepared, checks, ends, runs atomic.Int32
}

func (w *waitTool) tool() kernel.Tool {
	return kernel.Tool{
		Name: "demo_wait", Effect: kernel.Reads, Title: "Wait", Description: "Waits up to ms milliseconds for ready.",
		Input: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"ms": {Type: "integer"}, "refuse": {Type: "boolean"},
		}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
		Wait: func(_ context.Context, _ string, args json.RawMessage) (*events.Wait, error) {
			w.prepared.Add(1)
			var in struct {
				MS     int
				Refuse bool
			}
			_ = json.Unmarshal(args, &in)
			if in.Refuse {
				return nil, errs.E(errs.ScopeExceeded, "may not wait")
			}
			var hub *events.Hub
			return hub.NewWait(nil, time.Duration(in.MS)*time.Millisecond,
				func(context.Context) (bool, error) { w.checks.Add(1); return w.ready.Load(), nil },
				func(context.Context) error { w.ends.Add(1); return nil }), nil
		},
		Run: func(context.Context, *kernel.Call) (any, error) {
			w.runs.Add(1)
			return map[string]bool{"ready": w.ready.Load()}, nil
		},
	}
}

func waitFixture(t *testing.T) (*kernel.Tools, *waitTool, func() int) {
	d, r := toolFixture(t)
	w := &waitTool{}
	require.NoError(t, r.Add(w.tool()))
	return r, w, func() int { return snapshot(t, d).Entries }
}

func TestAWaitRunsWhereTheCallRunsWithoutAHolder(t *testing.T) {
	r, w, entries := waitFixture(t)
	out, err := r.Call(context.Background(), "code-web", "demo_wait", json.RawMessage(`{"ms": 30}`))
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"ready": false}, out)
	require.EqualValues(t, 1, w.ends.Load())
	require.EqualValues(t, 1, w.runs.Load())
	require.Equal(t, 1, entries())
}

// With a Holder, a call that must block hands its wait over and does
// nothing else; the call made again with Waited does not wait again.
func TestAHolderTakesTheWaitAndWaitedSkipsIt(t *testing.T) {
	r, w, entries := waitFixture(t)
	args := json.RawMessage(`{"ms": 30}`)
	h := &kernel.Holder{}
	_, err := r.Call(kernel.WithHolder(context.Background(), h), "code-web", "demo_wait", args)
	require.ErrorIs(t, err, kernel.ErrHeld)
	tool, wait := h.Held()
	require.Equal(t, "demo_wait", tool)
	require.NotNil(t, wait)
	require.EqualValues(t, 1, w.checks.Load())
	require.Zero(t, w.ends.Load())
	require.Zero(t, w.runs.Load())
	require.Zero(t, entries(), "a held call logs nothing yet")

	w.ready.Store(true)
	require.NoError(t, wait.Run(context.Background())) // runs out its deadline: no wake without a hub
	require.EqualValues(t, 1, w.ends.Load())
	out, err := r.Call(kernel.Waited(context.Background(), tool, nil), "code-web", "demo_wait", args)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"ready": true}, out)
	require.EqualValues(t, 1, w.prepared.Load(), "the wait was prepared once")
	require.Equal(t, 1, entries())
}

// A call whose first check finds something, or that is refused, is not
// held: it is answered in one pass, as without a Holder.
func TestAHolderTakesOnlyAWaitThatMustBlock(t *testing.T) {
	r, w, entries := waitFixture(t)
	w.ready.Store(true)
	h := &kernel.Holder{}
	_, err := r.Call(kernel.WithHolder(context.Background(), h), "code-web", "demo_wait", json.RawMessage(`{"ms": 30000}`))
	require.NoError(t, err)
	_, wait := h.Held()
	require.Nil(t, wait)
	require.EqualValues(t, 1, w.ends.Load())

	_, err = r.Call(kernel.WithHolder(context.Background(), h), "code-web", "demo_wait", json.RawMessage(`{"refuse": true}`))
	require.Equal(t, errs.ScopeExceeded, errs.CodeOf(err), "%v", err)
	_, wait = h.Held()
	require.Nil(t, wait)
	require.Equal(t, 2, entries(), "the call and the logged refusal")
}

// What the wait ended with is the call's outcome: a refusal is logged as
// one, and Waited for another tool changes nothing.
func TestWaitedCarriesTheWaitsOutcome(t *testing.T) {
	r, w, entries := waitFixture(t)
	refusal := errs.E(errs.AgentPaused, "paused while waiting")
	_, err := r.Call(kernel.Waited(context.Background(), "demo_wait", refusal), "code-web", "demo_wait", nil)
	require.Equal(t, errs.AgentPaused, errs.CodeOf(err), "%v", err)
	require.Zero(t, w.runs.Load())
	require.Equal(t, 1, entries())

	_, err = r.Call(kernel.Waited(context.Background(), "other_tool", refusal), "code-web", "demo_wait", json.RawMessage(`{"ms": 1}`))
	require.NoError(t, err)
	require.EqualValues(t, 1, w.prepared.Load())
}
