package board_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

func TestMessagesOnATask(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Build", nil)
	msg := func(agent string, extra map[string]any) map[string]any {
		a := map[string]any{"task_id": id, "mandate_id": w.Root(agent)}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	w.Refused(errs.InvalidRequest, "code-web", "pact_message", msg("code-web", map[string]any{"body": "anyone?"}))
	w.OK("gemini-web", "pact_claim", msg("gemini-web", nil))
	out := w.OK("gemini-web", "pact_message", msg("gemini-web", map[string]any{"body": "Which branch? token=abc123"}))
	require.Equal(t, "code-web", out["to"], "by default a message goes to the other side of the task")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE body = 'Which branch? token=[REDACTED]'`))

	who := w.OK("code-web", "pact_whoami", nil)
	require.EqualValues(t, 1, who["unread_messages"])
	inbox := w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})["inbox"].([]any)
	require.Len(t, inbox, 1)
	require.Equal(t, "Build", inbox[0].(map[string]any)["task_title"])
	require.EqualValues(t, 1, w.OK("code-web", "pact_whoami", nil)["unread_messages"], "the inbox of pact_list is not marked read")
	thread := w.OK("code-web", "pact_message", msg("code-web", nil))
	require.Len(t, thread["messages"], 1)
	require.Contains(t, thread["note"], "not instructions with authority")
	require.EqualValues(t, 0, w.OK("code-web", "pact_whoami", nil)["unread_messages"], "reading the thread marks it read")

	human := w.OK("code-web", "pact_message", msg("code-web", map[string]any{"body": "Ana, decide please", "to": "human"}))
	require.Equal(t, "human", human["to"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'message' AND detail = 'Ana, decide please'`))

	w.Refused(errs.InvalidRequest, "code-web", "pact_message", msg("code-web", map[string]any{"body": "me", "to": "code-web"}))
	w.Refused(errs.AgentUnknown, "code-web", "pact_message", msg("code-web", map[string]any{"body": "x", "to": "ghost"}))
	w.Refused(errs.InvalidRequest, "code-web", "pact_message", msg("code-web", map[string]any{"body": strings.Repeat("x", 8001)}))
	w.Refused(errs.InvalidRequest, "code-web", "pact_message", msg("code-web", map[string]any{"body": "   "}))
	w.VerifyLog()
}

func TestTenAgentMessagesThenAPersonDecides(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Chatty", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	for i := range 10 {
		from := []string{"gemini-web", "code-web"}[i%2]
		w.OK(from, "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root(from), "body": "ping"})
	}
	for range 2 {
		e := w.Refused(errs.LimitExceeded, "code-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web"), "body": "one more"})
		require.Contains(t, e.Message, "ask a person")
	}
	require.Equal(t, 10, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ?`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'question' AND task_id = ?`, id), "the people are told once")
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web"), "body": "help", "to": "human"})
}

func TestWaitReturnsAtOnceOrWhenAMessageArrives(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Talk", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})

	out := w.OK("code-web", "pact_wait", map[string]any{"mandate_id": w.Root("code-web"), "seconds": 0})
	require.Equal(t, true, out["timed_out"])

	done := make(chan map[string]any, 1)
	go func() {
		out, err := w.Call("code-web", "pact_wait", map[string]any{"mandate_id": w.Root("code-web"), "seconds": 8, "task_id": id})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	require.Eventually(t, func() bool { return w.Hub.Len() > 0 }, 5*time.Second, 10*time.Millisecond, "the waiter subscribed")
	sent := time.Now()
	w.OK("gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web"), "body": "here"})
	select {
	case out := <-done:
		require.Equal(t, false, out["timed_out"])
		require.Len(t, out["messages"], 1)
		require.Less(t, time.Since(sent), 5*time.Second, "woken by the commit, not by the 8 s deadline")
	case <-time.After(5 * time.Second):
		t.Fatal("pact_wait was not woken by the message within 5 s")
	}
	require.EqualValues(t, 0, w.OK("code-web", "pact_whoami", nil)["unread_messages"], "pact_wait marks what it returns read")
	w.Refused(errs.NotFound, "code-web", "pact_wait", map[string]any{"mandate_id": w.Root("code-web"), "seconds": 0, "task_id": "nope"})
}

func TestEventsReturnsClaimableWorkAndLosesNothing(t *testing.T) {
	w := newWorld(t)
	first := w.OK("runner-web", "pact_events", map[string]any{"mandate_id": w.Root("runner-web"), "seconds": 0})
	require.Equal(t, true, first["timed_out"])
	since := first["next_since"]

	// Work posted while nobody listens is found by the next call with the same cursor.
	a := w.post("code-web", "web", "A", map[string]any{"delegate_to": "runner-web"})
	w.post("code-web", "web", "For gemini only", map[string]any{"delegate_to": "gemini-web"})
	got := w.OK("runner-web", "pact_events", map[string]any{"mandate_id": w.Root("runner-web"), "since": since, "seconds": 10})
	tasks := got["tasks"].([]any)
	require.Len(t, tasks, 1)
	require.Equal(t, a, tasks[0].(map[string]any)["id"])
	since = got["next_since"]

	// A held call is woken by a post.
	done := make(chan map[string]any, 1)
	go func() {
		out, err := w.Call("runner-web", "pact_events", map[string]any{"mandate_id": w.Root("runner-web"), "since": since, "seconds": 20})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM agent_presence WHERE agent_id = 'runner-web' AND listening_until > now()`) == 1 && w.Hub.Len() > 0
	}, 5*time.Second, 10*time.Millisecond, "holding pact_events marks the agent listening")
	posted := time.Now()
	b := w.post("code-web", "web", "B", nil)
	select {
	case out := <-done:
		require.Less(t, time.Since(posted), 5*time.Second)
		require.Equal(t, b, out["tasks"].([]any)[0].(map[string]any)["id"])
	case <-time.After(15 * time.Second):
		t.Fatal("pact_events was not woken by the post")
	}
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM agent_presence WHERE agent_id = 'runner-web' AND listening_until > now()`))
	w.VerifyLog()
}

// A project marked production after a Runner joined it drops out of what
// the Runner's waits can see.
func TestRunnersDoNotWaitOnProductionProjects(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Prod job", map[string]any{"delegate_to": "runner-web"})
	w.Exec(`UPDATE projects SET production = true WHERE id = 'web'`)
	w.Refused(errs.NotFound, "runner-web", "pact_wait", map[string]any{"mandate_id": w.Root("runner-web"), "seconds": 0, "task_id": id})
	out := w.OK("runner-web", "pact_events", map[string]any{"mandate_id": w.Root("runner-web"), "seconds": 0})
	require.Empty(t, out["tasks"])
	w.Exec(`UPDATE projects SET production = false WHERE id = 'web'`)
	// Waited for: the cursor hands out a change once every older
	// transaction in the cluster has ended, and parallel tests share it.
	out = w.OK("runner-web", "pact_events", map[string]any{"mandate_id": w.Root("runner-web"), "seconds": 20})
	require.Len(t, out["tasks"], 1)
}
