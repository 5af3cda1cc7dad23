package board_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// pact_reply: the poster answers the question its task asked; the task
// is back on the board with the answer, and the agent that asked gets it
// as a message. A deferral for want of authority stays with people, and
// only the poster answers.
func TestAPosterRepliesToTheQuestionItsTaskAsked(t *testing.T) {
	w := newWorld(t)
	asked := w.post("code-web", "web", "Pick a colour", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": asked, "mandate_id": w.Root("gemini-web")})
	w.Refused(errs.InvalidRequest, "code-web", "pact_reply", map[string]any{"task_id": asked, "reply": "Blue", "mandate_id": w.Root("code-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": asked, "status": "input_required", "result": "Blue or green?",
		"mandate_id": w.Root("gemini-web")})
	deferred := w.post("code-web", "web", "Deploy it", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": deferred, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_defer", map[string]any{"task_id": deferred, "reason": "Deploys are people's.", "mandate_id": w.Root("gemini-web")})

	e := w.Refused(errs.InvalidRequest, "code-web", "pact_reply", map[string]any{"task_id": deferred, "reply": "Go ahead",
		"mandate_id": w.Root("code-web")})
	require.Contains(t, e.Message, "a person decides it")
	w.Refused(errs.Forbidden, "chat-web", "pact_reply", map[string]any{"task_id": asked, "reply": "Green", "mandate_id": w.Root("chat-web")})
	w.Refused(errs.InvalidRequest, "code-web", "pact_reply", map[string]any{"task_id": asked, "reply": "  ", "mandate_id": w.Root("code-web")})
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM tasks WHERE status = 'input_required' AND deferred`), "refusals change nothing")

	out := w.OK("code-web", "pact_reply", map[string]any{"task_id": asked, "reply": "Blue", "mandate_id": w.Root("code-web")})
	require.Equal(t, "gemini-web", out["to"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND NOT deferred AND answer = 'Blue'`, asked))
	got := w.OK("gemini-web", "pact_wait", map[string]any{"task_id": asked, "seconds": 0, "mandate_id": w.Root("gemini-web")})
	require.Contains(t, mustJSONString(t, got), "Blue", "the agent that asked gets the answer")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": asked, "mandate_id": w.Root("gemini-web")})
	w.VerifyLog()
}

func mustJSONString(t *testing.T, v any) string { return string(mustJSON(t, v)) }
