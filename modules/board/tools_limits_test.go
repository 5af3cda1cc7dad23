package board_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// TestACancelReasonOf2000BytesIsAccepted: pact_cancel's reason may be
// 2,000 bytes, the limit it documents; one byte more is refused and the
// task stays as it was.
func TestACancelReasonOf2000BytesIsAccepted(t *testing.T) {
	w := newWorld(t)
	over := w.post("code-web", "web", "Over", nil)
	e := w.Refused(errs.InvalidRequest, "code-web", "pact_cancel", map[string]any{"task_id": over,
		"reason": strings.Repeat("r", 2001), "mandate_id": w.Root("code-web")})
	require.Contains(t, e.Message, "the limit is 2000")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted'`, over))

	at := w.post("code-web", "web", "At the limit", nil)
	out := w.OK("code-web", "pact_cancel", map[string]any{"task_id": at, "reason": strings.Repeat("r", 2000),
		"mandate_id": w.Root("code-web")})
	require.Equal(t, "canceled", out["status"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND length(result->>'note') = 2000`, at))
}

// TestAReplyOfExactly8000CharactersIsAccepted: pact_reply takes a reply of
// 8,000 characters, counted as characters (two-byte ones here), the
// limit of any message; one more is refused.
func TestAReplyOfExactly8000CharactersIsAccepted(t *testing.T) {
	w := newWorld(t)
	asked := w.post("code-web", "web", "Pick a colour", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": asked, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": asked, "status": "input_required", "result": "Which one?",
		"mandate_id": w.Root("gemini-web")})
	e := w.Refused(errs.InvalidRequest, "code-web", "pact_reply", map[string]any{"task_id": asked,
		"reply": strings.Repeat("é", 8001), "mandate_id": w.Root("code-web")})
	require.Contains(t, e.Message, "this one has 8001")
	w.OK("code-web", "pact_reply", map[string]any{"task_id": asked, "reply": strings.Repeat("é", 8000), "mandate_id": w.Root("code-web")})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND char_length(answer) = 8000`, asked))
}

// TestPactEventsIsLoggedUnderItsMandateAndProject: the entry of a
// pact_events call names the mandate chain it ran under and, when it
// watched one project, that project, so the log shows who waited where.
func TestPactEventsIsLoggedUnderItsMandateAndProject(t *testing.T) {
	w := newWorld(t)
	root := w.Root("gemini-web")
	w.OK("gemini-web", "pact_events", map[string]any{"mandate_id": root, "project_id": "web", "seconds": 0})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_events' AND agent_id = 'gemini-web'
		AND outcome = 'ok' AND project_id = 'web' AND mandate_chain[array_length(mandate_chain, 1)] = ?::uuid`, root))
}

// TestARunCredentialLivesHalfAnHourWhenNoSecondsAreGiven: without seconds,
// a run credential dies 1,800 seconds after it is issued, the default
// pact_run_credential documents.
func TestARunCredentialLivesHalfAnHourWhenNoSecondsAreGiven(t *testing.T) {
	w := newWorld(t)
	task, delegated := w.runSetup("Half an hour")
	before := time.Now()
	out := w.OK("runner-web", "pact_run_credential", map[string]any{"task_id": task, "mandate_id": delegated,
		"tools": []string{"pact_whoami"}})
	expires, err := time.Parse(time.RFC3339Nano, out["expires_at"].(string))
	require.NoError(t, err)
	require.WithinRange(t, expires, before.Add(30*time.Minute-time.Minute), time.Now().Add(30*time.Minute+time.Minute))
}

// TestMessagesShowWhoSentThemAndWhetherTheyWereRead: the thread an agent
// reads shows each message's sender (a person as human:<id>) and
// recipient, and whether the recipient has read it, which changes once the
// recipient takes it.
func TestMessagesShowWhoSentThemAndWhetherTheyWereRead(t *testing.T) {
	w := newWorld(t)
	task := w.post("code-web", "web", "Talk", map[string]any{"delegate_to": "gemini-web"})
	w.OK("code-web", "pact_message", map[string]any{"mandate_id": w.Root("code-web"), "task_id": task, "to": "gemini-web", "body": "hi"})
	got := w.Admin("val", "POST", "/tasks/"+task+"/message", `{"body": "start with the docs"}`)
	require.Equal(t, 200, got.Status, got.Raw)

	thread := func() []any {
		out := w.OK("code-web", "pact_message", map[string]any{"mandate_id": w.Root("code-web"), "task_id": task})
		msgs, _ := out["messages"].([]any)
		require.Len(t, msgs, 2, "%v", out)
		return msgs
	}
	msgs := thread()
	require.Equal(t, "code-web", msgs[0].(map[string]any)["from"])
	require.Equal(t, "gemini-web", msgs[0].(map[string]any)["to"])
	require.Equal(t, false, msgs[0].(map[string]any)["read"], "not read yet")
	require.Equal(t, "human:val", msgs[1].(map[string]any)["from"], "a person's message names the person")

	taken := w.OK("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "task_id": task, "seconds": 0})
	require.Len(t, taken["messages"], 2)
	msgs = thread()
	require.Equal(t, true, msgs[0].(map[string]any)["read"], "read once gemini-web took it")
}

// TestAWaitWithoutSecondsWaitsHalfAMinute: pact_wait's default wait is 30
// seconds, held until a message comes (not answered at once), and its log
// entry records the 30 seconds it waited at most.
func TestAWaitWithoutSecondsWaitsHalfAMinute(t *testing.T) {
	w := newWorld(t)
	task := w.post("code-web", "web", "Talk", nil)
	done := make(chan map[string]any, 1)
	go func() {
		out, err := w.Call("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "task_id": task})
		if err != nil {
			out = map[string]any{"error": err.Error()}
		}
		done <- out
	}()
	require.Eventually(t, func() bool { return w.Hub.Len() > 0 }, 20*time.Second, 10*time.Millisecond,
		"pact_wait without seconds is held")
	w.OK("code-web", "pact_message", map[string]any{"mandate_id": w.Root("code-web"), "task_id": task, "to": "gemini-web", "body": "now"})
	select {
	case out := <-done:
		require.Len(t, out["messages"], 1, "%v", out)
	case <-time.After(30 * time.Second):
		t.Fatal("pact_wait did not answer the message")
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'pact_wait' AND e.agent_id = 'gemini-web' AND (p.content->>'seconds')::float8 = 30`))
}
