package board_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

func TestHandoffRule(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Build it", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	report := func(result any) map[string]any {
		return map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("gemini-web"), "result": result}
	}
	// Every closing status needs the Handoff, not only completed (BOARD-002).
	for _, status := range []string{"completed", "failed", "canceled"} {
		for _, bad := range []any{nil, "done", "# Notes\nhandoff later", map[string]any{"summary": "x"}, map[string]any{"handoff": ""}} {
			in := report(bad)
			in["status"] = status
			e := w.Refused(errs.HandoffRequired, "gemini-web", "pact_report", in)
			require.Contains(t, e.Message, "## Handoff", "%s with %v", status, bad)
		}
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, id), "the task stays open")
	out := w.OK("gemini-web", "pact_report", report("Built it.\n\n## Handoff\n- Done: all"))
	require.Equal(t, "completed", out["status"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'task_closed' AND detail = 'completed'`))
	w.Refused(errs.ClaimLost, "gemini-web", "pact_report", report(map[string]any{"Handoff": "- again"}))
	w.VerifyLog()
}

func TestClosingATaskRevokesItsDelegatedMandateAndCancelsSubtasks(t *testing.T) {
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Parent",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web",
		"child_scope": []any{"task.work@project:web", "task.read@project:web", "task.post@project:web"}})
	parent, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": parent, "mandate_id": delegated})
	// gemini delegates a subtask to runner-web under the parent's mandate.
	sub := w.OK("gemini-web", "pact_post", map[string]any{"project_id": "web", "title": "Child",
		"mandate_id": delegated, "delegate_to": "runner-web", "parent_task_id": parent,
		"child_scope": []any{"task.work@project:web", "task.read@project:web"}})
	grandchild := sub["delegated_mandate_id"].(string)

	out := w.OK("gemini-web", "pact_report", map[string]any{"task_id": parent, "status": "completed",
		"mandate_id": delegated, "result": map[string]any{"handoff": map[string]any{"branch": "feat/x"}}})
	require.Equal(t, delegated, out["revoked_mandate"])
	require.EqualValues(t, 1, out["subtasks_canceled"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled'
		AND result->>'reason' = 'mandate_revoked' AND result->>'mandate_id' = ?`, sub["task_id"], delegated))
	e := w.Refused(errs.MandateRevoked, "runner-web", "pact_list", map[string]any{"mandate_id": grandchild})
	require.Equal(t, delegated, e.MandateID, "the refusal names the revoked link")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'mandate.revoke_on_close' AND task_id = ?`, parent))
	require.Zero(t, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'task_closed' AND task_id = ?`, sub["task_id"]),
		"only top-level tasks announce closing")
	w.VerifyLog()
}

func TestInputRequiredAndBudgets(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Question", nil)
	w.OK("runner-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("runner-web"), "reserve": map[string]any{"runs": 1}})
	out := w.OK("runner-web", "pact_report", map[string]any{"task_id": id, "status": "working",
		"mandate_id": w.Root("runner-web"), "usage": map[string]any{"turns": 150}})
	require.Equal(t, []any{"turns"}, out["budget_exceeded"], "usage is recorded past the ceiling, then reported")
	require.Equal(t, map[string]any{"runs": 2.0, "turns": 0.0}, out["budget"])
	w.Refused(errs.InvalidRequest, "runner-web", "pact_report", map[string]any{"task_id": id, "status": "working",
		"mandate_id": w.Root("runner-web"), "usage": map[string]any{"turns": -1}})

	out = w.OK("runner-web", "pact_report", map[string]any{"task_id": id, "status": "input_required",
		"mandate_id": w.Root("runner-web"), "result": "Which database should I use?"})
	require.Contains(t, out["note"], "Stop working on it")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND deferred AND assignee IS NULL
		AND defer_reason = 'Which database should I use?'`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'question' AND task_id = ?`, id))
	list := w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web"), "filter": "all"})
	require.Empty(t, list["tasks"], "deferred tasks are listed apart")
	deferred := list["deferred"].([]any)[0].(map[string]any)
	require.Equal(t, "Which database should I use?", deferred["defer_reason"])
	require.Nil(t, deferred["result"], "the question is sent once")
}

func TestDefer(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Needs a deploy", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.Refused(errs.InvalidRequest, "code-web", "pact_defer", map[string]any{"task_id": id, "reason": "x", "mandate_id": w.Root("code-web")})
	out := w.OK("gemini-web", "pact_defer", map[string]any{"task_id": id, "reason": "needs deploy rights",
		"mandate_id": w.Root("gemini-web"), "needed_scope": []any{"deploy.web@project:web"}})
	require.Equal(t, "input_required", out["status"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND needed_scope = '{deploy.web@project:web}'`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'deferred' AND detail = 'needs deploy rights'`))
}

// Only an agent that could claim a task may defer it: its mandate must cover
// the task's action in its project, and a delegated task is its delegate's
// (docs/security.md, finding 10).
func TestDeferNeedsTheScopeToClaim(t *testing.T) {
	w := newWorld(t)
	open := w.post("code-web", "web", "Open", nil)
	readOnly := w.Mandate("ana", "gemini-web", "task.read@project:web")
	e := w.Refused(errs.ScopeExceeded, "gemini-web", "pact_defer", map[string]any{"task_id": open, "reason": "x",
		"mandate_id": readOnly})
	require.Equal(t, readOnly, e.MandateID)
	delegated := w.post("code-web", "web", "For runner", map[string]any{"delegate_to": "runner-web"})
	w.Refused(errs.WrongAgent, "gemini-web", "pact_defer", map[string]any{"task_id": delegated, "reason": "x",
		"mandate_id": w.Root("gemini-web")})
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM tasks WHERE id IN (?, ?) AND status = 'submitted' AND NOT deferred`,
		open, delegated), "a refused defer leaves the tasks on the board")
	w.OK("gemini-web", "pact_defer", map[string]any{"task_id": open, "reason": "A person decides.", "mandate_id": w.Root("gemini-web")})
	w.VerifyLog()
}

// The scope check holds in every task state pact_defer accepts. The
// population: every status the tasks table allows (its CHECK, read from the
// database), each unassigned and assigned to the caller where the table
// allows it. A state defer refuses outright (invalid_request, under any
// mandate) is not one it accepts; in every state it accepts, a mandate
// that does not cover the task's action is refused scope_exceeded, the
// task left as it was, and the caller's root mandate defers it.
func TestDeferNeedsTheScopeToClaimInEveryStateItAccepts(t *testing.T) {
	w := newWorld(t)
	var def string
	require.NoError(t, w.DB.NewRaw(`SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'tasks'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%submitted%'`).
		Scan(context.Background(), &def))
	var statuses []string
	for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(def, -1) {
		statuses = append(statuses, m[1])
	}
	require.Contains(t, statuses, "working", def)
	readOnly := w.Mandate("ana", "gemini-web", "task.read@project:web")
	accepted := map[string]bool{}
	for _, status := range statuses {
		for _, mine := range []bool{false, true} {
			name := fmt.Sprintf("%s, assigned to the caller: %v", status, mine)
			task := w.post("code-web", "web", name, nil)
			if mine {
				w.OK("gemini-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": w.Root("gemini-web")})
			} else if status == "working" {
				continue // the table holds no working task without an assignee
			}
			w.Exec(`UPDATE tasks SET status = ? WHERE id = ?`, status, task)
			args := func(m string) map[string]any {
				return map[string]any{"task_id": task, "reason": "A person decides.", "mandate_id": m}
			}
			_, err := w.Call("gemini-web", "pact_defer", args(readOnly))
			if errs.CodeOf(err) == errs.InvalidRequest {
				w.Refused(errs.InvalidRequest, "gemini-web", "pact_defer", args(w.Root("gemini-web")))
				continue
			}
			require.Equal(t, errs.ScopeExceeded, errs.CodeOf(err), "%s: %v", name, err)
			require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = ? AND NOT deferred`, task, status),
				"%s: a refused defer leaves the task where it was", name)
			w.OK("gemini-web", "pact_defer", args(w.Root("gemini-web")))
			accepted[name] = true
		}
	}
	require.True(t, accepted["submitted, assigned to the caller: false"] && accepted["working, assigned to the caller: true"],
		"defer accepts an open task and the caller's working one: %v", accepted)
	w.VerifyLog()
}

func TestRevoke(t *testing.T) {
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "T",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	e := w.Refused(errs.NotIssuer, "code-web", "pact_revoke", map[string]any{"mandate_id": w.Root("code-web")})
	require.Equal(t, w.Root("code-web"), e.MandateID)
	w.Refused(errs.NotIssuer, "gemini-web", "pact_revoke", map[string]any{"mandate_id": post["delegated_mandate_id"]})
	w.Refused(errs.NotFound, "code-web", "pact_revoke", map[string]any{"mandate_id": "nope"})
	out := w.OK("code-web", "pact_revoke", map[string]any{"mandate_id": post["delegated_mandate_id"]})
	require.EqualValues(t, 1, out["tasks_stopped"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled'`, post["task_id"]))
	w.VerifyLog()
}

func TestListFiltersAndCursor(t *testing.T) {
	w := newWorld(t)
	a := w.post("code-web", "web", "A", nil)
	w.post("code-web", "web", "B", map[string]any{"delegate_to": "gemini-web"})
	w.post("chat-web", "api", "C", nil)
	list := func(agent string, args map[string]any) map[string]any {
		args["mandate_id"] = w.Root(agent)
		return w.OK(agent, "pact_list", args)
	}
	require.Len(t, list("runner-web", map[string]any{})["tasks"], 1, "a task delegated to someone else is not open to others")
	require.Len(t, list("gemini-web", map[string]any{})["tasks"], 2)
	first := list("code-web", map[string]any{"filter": "all"})
	require.Len(t, first["tasks"], 2, "code-web reads web only")
	require.False(t, first["has_more"].(bool))
	since := first["next_since"]
	require.Empty(t, list("code-web", map[string]any{"since": since})["tasks"])
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": a, "mandate_id": w.Root("gemini-web")})
	changed := list("code-web", map[string]any{"since": since, "filter": "all"})["tasks"].([]any)
	require.Len(t, changed, 1, "a claimed task moves forward in the cursor")
	require.Len(t, list("gemini-web", map[string]any{"filter": "mine"})["tasks"], 2)
	require.Len(t, list("chat-web", map[string]any{"project_id": "api", "filter": "all"})["tasks"], 1)
	w.Refused(errs.ProjectMismatch, "code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web"), "project_id": "api"})
	require.Len(t, list("code-web", map[string]any{"limit": 1, "filter": "all"})["tasks"], 1)
	w.Refused(errs.InvalidRequest, "code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web"), "filter": "weird"})
}
