package board_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/board"
)

// Two board processes on one database: each has its own kernel, modules and
// event hub (its own LISTEN connection). A message committed through one
// wakes a pact_wait held on the other in well under a second.
func TestAMessageThroughOneProcessWakesAWaitOnAnother(t *testing.T) {
	w := newWorld(t)
	other := w.Twin(board.New())

	id := w.post("code-web", "web", "Across processes", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})

	type result struct {
		out      any
		err      error
		returned time.Time
	}
	done := make(chan result, 1)
	go func() {
		raw, _ := json.Marshal(map[string]any{"mandate_id": w.Root("code-web"), "seconds": 30})
		out, err := other.Kernel.Tools().Call(context.Background(), "code-web", "pact_wait", raw)
		done <- result{out, err, time.Now()}
	}()
	// A held wait holds two subscriptions: its wakes, and its agent's
	// stops (SEC-025).
	require.Eventually(t, func() bool { return other.Hub.Len() == 2 }, 5*time.Second, 5*time.Millisecond)
	w.OK("gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web"), "body": "hello"})
	committed := time.Now()
	select {
	case r := <-done:
		require.NoError(t, r.err)
		body, err := json.Marshal(r.out)
		require.NoError(t, err)
		var got struct {
			Messages []any `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(body, &got))
		require.Len(t, got.Messages, 1)
		require.Less(t, r.returned.Sub(committed), time.Second, "woken within a second of the commit")
	case <-time.After(10 * time.Second):
		t.Fatal("the wait in the other process was not woken")
	}
}

// A client that goes away mid-wait costs nothing: its call ends with its
// context, it leaves no subscription, and it is not logged as a refusal.
func TestADisconnectedWaiterCostsNothing(t *testing.T) {
	w := newWorld(t)
	before := w.Count(`SELECT count(*) FROM entries`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		raw, _ := json.Marshal(map[string]any{"mandate_id": w.Root("runner-web"), "seconds": 40})
		_, err := w.Kernel.Tools().Call(ctx, "runner-web", "pact_events", raw)
		done <- err
	}()
	require.Eventually(t, func() bool { return w.Hub.Len() == 2 }, 5*time.Second, 5*time.Millisecond) // wakes and stops
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not end with its client")
	}
	require.Zero(t, w.Hub.Len(), "no subscription is left behind")
	require.Equal(t, before, w.Count(`SELECT count(*) FROM entries`))
	require.Zero(t, w.Count(`SELECT count(*) FROM agent_presence WHERE agent_id = 'runner-web' AND listening_until > now()`))
}
