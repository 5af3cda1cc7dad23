package board_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEventsHoldsWhileItsOnlyMessagesAreElsewhere: pact_events is ready
// exactly when its answer would hold something. An unread message on a
// project the call does not watch (another project_id; a Runner's
// production project) used to end every call at once with nothing, so an
// agent looping on it spun (docs/specs/divergences.md, audit item 1).
func TestEventsHoldsWhileItsOnlyMessagesAreElsewhere(t *testing.T) {
	w := newWorld(t)
	w.Project("ana", "ops", false)
	w.agent("gemini-two", "gemini", nil, "web", "api")
	w.agent("runner-ops", "runner", nil, "ops")
	w.agent("code-ops", "code", nil, "ops")
	onWeb := w.post("code-web", "web", "On web", nil)
	w.OK("code-web", "pact_message", map[string]any{"mandate_id": w.Root("code-web"), "task_id": onWeb,
		"to": "gemini-two", "body": "about web"})
	onOps := w.post("code-ops", "ops", "On ops", nil)
	w.OK("code-ops", "pact_message", map[string]any{"mandate_id": w.Root("code-ops"), "task_id": onOps,
		"to": "runner-ops", "body": "about ops"})
	w.Exec(`UPDATE projects SET production = true WHERE id = 'ops'`)

	// hold runs pact_events as agent and returns its answer, failing if
	// the call ends before it is seen held; then (if not nil) wakes it.
	hold := func(t *testing.T, agent string, args map[string]any, wake func()) map[string]any {
		done := make(chan map[string]any, 1)
		go func() {
			out, err := w.Call(agent, "pact_events", args)
			if err != nil {
				t.Error(err)
			}
			done <- out
		}()
		held := func() bool {
			return w.Count(`SELECT count(*) FROM agent_presence WHERE agent_id = ? AND listening_until > now()`, agent) == 1 && w.Hub.Len() > 0
		}
		for !held() {
			select {
			case out := <-done:
				t.Fatalf("pact_events answered at once with %v while its only message is on a project it does not watch", out)
			case <-time.After(5 * time.Millisecond):
			}
		}
		if wake != nil {
			wake()
		}
		select {
		case out := <-done:
			return out
		case <-time.After(25 * time.Second):
			t.Fatal("pact_events did not answer")
			return nil
		}
	}

	t.Run("AnotherProject", func(t *testing.T) {
		since := w.OK("gemini-two", "pact_events", map[string]any{"mandate_id": w.Root("gemini-two"), "project_id": "api", "seconds": 0})["next_since"]
		var id string
		out := hold(t, "gemini-two", map[string]any{"mandate_id": w.Root("gemini-two"), "project_id": "api",
			"since": since, "seconds": 30}, func() { id = w.post("chat-web", "api", "On api", nil) })
		require.Len(t, out["tasks"], 1, "%v", out)
		require.Equal(t, id, out["tasks"].([]any)[0].(map[string]any)["id"])
		require.Empty(t, out["messages"], "the message on web is not this call's")
	})
	t.Run("RunnerAndProduction", func(t *testing.T) {
		out := hold(t, "runner-ops", map[string]any{"mandate_id": w.Root("runner-ops"), "seconds": 1}, nil)
		require.Equal(t, true, out["timed_out"], "%v", out)
		require.Empty(t, out["messages"])
	})
	w.VerifyLog()
}
