package board_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// pact_cancel: a poster withdraws a task it no longer needs, under the
// mandate it posted it with, with the effects of a person's cancel: the
// delegated mandate and everything under it revoked (its holder's next
// report is refused), open subtasks canceled.
func TestAPosterCancelsItsOwnTask(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Delegated", map[string]any{"delegate_to": "gemini-web",
		"child_scope": []string{"task.work@project:web", "task.read@project:web", "task.post@project:web"}})
	row := w.OK("code-web", "pact_list", map[string]any{"filter": "all", "mandate_id": w.Root("code-web")})
	var delegated string
	for _, v := range row["tasks"].([]any) {
		if task := v.(map[string]any); task["id"] == id {
			delegated = task["delegated_mandate_id"].(string)
		}
	}
	require.NotEmpty(t, delegated)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": delegated})
	sub := w.post("gemini-web", "web", "Subtask", map[string]any{"parent_task_id": id, "mandate_id": delegated})

	args := map[string]any{"task_id": id, "reason": "not needed after all", "mandate_id": w.Root("code-web")}
	w.Refused(errs.InvalidRequest, "code-web", "pact_cancel", map[string]any{"task_id": id, "reason": " ", "mandate_id": w.Root("code-web")})
	w.Refused(errs.Forbidden, "chat-web", "pact_cancel", map[string]any{"task_id": id, "reason": "mine now", "mandate_id": w.Root("chat-web")})
	w.Refused(errs.Forbidden, "gemini-web", "pact_cancel", map[string]any{"task_id": id, "reason": "mine now", "mandate_id": delegated})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, id), "refusals change nothing")

	out := w.OK("code-web", "pact_cancel", args)
	require.Equal(t, "canceled", out["status"])
	require.Contains(t, out["revoked"], delegated)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled'
		AND result->>'reason' = 'canceled_by_poster' AND result->>'by' = 'code-web' AND result->>'note' = 'not needed after all'`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled'`, sub), "its open subtask is canceled")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NOT NULL`, delegated))
	w.Refused(errs.MandateRevoked, "gemini-web", "pact_report", map[string]any{"task_id": id, "status": "working", "mandate_id": delegated})
	e := w.Refused(errs.InvalidRequest, "code-web", "pact_cancel", args)
	require.Contains(t, e.Message, "canceled already")
	w.VerifyLog()
}

// A poster acting under another of its mandates than the task's is
// refused: the task hangs on the mandate it was posted with.
func TestAPosterCancelsUnderTheTasksMandateOnly(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Mine", nil)
	other := w.Mandate("ana", "code-web", "task.post@project:web", "task.read@project:web")
	e := w.Refused(errs.InvalidRequest, "code-web", "pact_cancel", map[string]any{"task_id": id, "reason": "r", "mandate_id": other})
	require.Contains(t, e.Message, "cancel it under that mandate")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted'`, id))
}

// A task held under the holder's own mandate: the holder's next report,
// after the poster canceled it, is claim_lost.
func TestTheHolderOfACanceledTaskHearsClaimLost(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Open", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.OK("code-web", "pact_cancel", map[string]any{"task_id": id, "reason": "done elsewhere", "mandate_id": w.Root("code-web")})
	w.Refused(errs.ClaimLost, "gemini-web", "pact_report", map[string]any{"task_id": id, "status": "working", "mandate_id": w.Root("gemini-web")})
}
