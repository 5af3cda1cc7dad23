package board_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// refusedAdmin requires a person's decision to be refused with code.
func (w *world) refusedAdmin(code errs.Code, as, taskID, decision, body string) {
	w.T.Helper()
	r := w.Admin(as, "POST", "/tasks/"+taskID+"/"+decision, body)
	require.Equal(w.T, string(code), r.Body["error"], "%s %s: %s", as, decision, r.Raw)
}

func TestPeopleApproveOrRejectTasks(t *testing.T) {
	w := newWorld(t)
	deploy := w.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	r := w.Admin("vic", "POST", "/tasks/"+deploy+"/approve", "")
	require.Equal(t, http.StatusForbidden, r.Status, r.Raw)
	w.refusedAdmin(errs.NotFound, "ana", "33333333-3333-4333-8333-333333333333", "approve", "")
	w.decide("ana", deploy, "approve", "")
	w.refusedAdmin(errs.InvalidRequest, "ana", deploy, "approve", "")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND approved_by = 'ana'`, deploy))

	wide := w.Mandate("ana", "code-web", "*@project:web")
	other := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Pay", "mandate_id": wide,
		"action": "finance.pay", "delegate_to": "gemini-web"})["task_id"].(string)
	w.decide("ana", other, "reject", "")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'rejected'`, other))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates m JOIN tasks t ON t.delegated_mandate_id = m.id
		WHERE t.id = ? AND m.revoked_at IS NOT NULL`, other), "a rejected task's delegated mandate dies")
	w.VerifyLog()
}

func TestPeopleResumeDeferredTasksWithAnAnswer(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Which DB?", nil)
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "resume", "")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": w.Root("gemini-web"), "result": "Postgres or SQLite?"})
	w.decide("ana", id, "resume", `{"answer": "PostgreSQL"}`)
	list := w.OK("gemini-web", "pact_list", map[string]any{"mandate_id": w.Root("gemini-web")})
	task := list["tasks"].([]any)[0].(map[string]any)
	require.Equal(t, "PostgreSQL", task["answer"], "the agent sees the answer on the task")
	require.Equal(t, false, task["deferred"])

	// The agent that asked also gets the answer as a message from the
	// person on the task, so pact_wait on the task returns it.
	got := w.OK("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 0, "task_id": id})
	msgs := got["messages"].([]any)
	require.Len(t, msgs, 1, "one answer, to the agent that asked: %v", got)
	msg := msgs[0].(map[string]any)
	require.Equal(t, "PostgreSQL", msg["body"])
	require.Equal(t, "human:ana", msg["from"])
	require.Empty(t, w.OK("code-web", "pact_wait", map[string]any{"mandate_id": w.Root("code-web"), "seconds": 0})["messages"],
		"nobody else gets it")

	// A resume without an answer sends nothing; pact_defer's asker is
	// answered the same way.
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": w.Root("gemini-web"), "result": "And the version?"})
	w.decide("ana", id, "resume", "")
	require.Empty(t, w.OK("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 0})["messages"])
	w.OK("runner-web", "pact_defer", map[string]any{"task_id": id, "mandate_id": w.Root("runner-web"), "reason": "Which version?"})
	w.decide("ana", id, "resume", `{"answer": "17"}`)
	got = w.OK("runner-web", "pact_wait", map[string]any{"mandate_id": w.Root("runner-web"), "seconds": 0, "task_id": id})
	require.Len(t, got["messages"], 1, "%v", got)
	require.Equal(t, "17", got["messages"].([]any)[0].(map[string]any)["body"])
}

func TestPeopleCancelReleaseAssignAndEdit(t *testing.T) {
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Job", "mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)

	// Assign to another agent: the previous delegate's mandate dies.
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "assign", `{"agent": "chat-web"}`) // chat agents cannot claim
	w.refusedAdmin(errs.AgentUnknown, "ana", id, "assign", `{"agent": "ghost"}`)
	got := w.decide("ana", id, "assign", `{"agent": "runner-web"}`)
	require.Equal(t, delegated, got.Body["revoked_mandate"])
	w.Refused(errs.MandateRevoked, "gemini-web", "pact_list", map[string]any{"mandate_id": delegated})

	// Release: the holder loses the claim.
	w.OK("runner-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("runner-web")})
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "assign", `{"agent": "gemini-web"}`) // release it first
	w.decide("ana", id, "release", "")
	w.Refused(errs.ClaimLost, "runner-web", "pact_report", map[string]any{"task_id": id, "status": "working", "mandate_id": w.Root("runner-web")})

	// Edit: the log keeps the old text.
	w.decide("ana", id, "edit", `{"title": "Job, renamed"}`)
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "edit", `{"title": "  "}`)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.task.edit' AND e.outcome = 'ok' AND p.content->'was'->>'title' = 'Job'`))

	// Cancel: closed for good.
	w.decide("ana", id, "cancel", `{"reason": "not needed"}`)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled' AND result->>'reason' = 'canceled_by_human'`, id))
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "cancel", `{"reason": "again"}`)
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "edit", `{"title": "Job, renamed"}`)
	w.VerifyLog()
}

// TestCommandLineDecisionsRefuseAsTheAdminAPIDoes: the methods pact-admin's
// task-approve, task-reject, task-resume and task-message call refuse what
// the Admin API's operations refuse, with the same code and message, and
// change nothing when they do.
func TestCommandLineDecisionsRefuseAsTheAdminAPIDoes(t *testing.T) {
	w := newWorld(t)
	acme := w.acme()
	open := w.post("code-web", "web", "Plain", nil)
	missing := "33333333-3333-4333-8333-333333333333"
	ctx := context.Background()
	answer := "yes"
	for _, tc := range []struct {
		name, as, task, decision, body string
		call                           func(as, task string) error
	}{
		{"ApproveMissing", "ana", missing, "approve", "", func(as, id string) error { _, err := w.board.ApproveTask(ctx, as, id, true); return err }},
		{"ApproveAnotherOrgs", "ana", acme, "approve", "", func(as, id string) error { _, err := w.board.ApproveTask(ctx, as, id, true); return err }},
		{"ApproveNotWaiting", "ana", open, "approve", "", func(as, id string) error { _, err := w.board.ApproveTask(ctx, as, id, true); return err }},
		{"RejectNotWaiting", "ana", open, "reject", "", func(as, id string) error { _, err := w.board.ApproveTask(ctx, as, id, false); return err }},
		{"ResumeNotDeferred", "ana", open, "resume", `{"answer": "yes"}`, func(as, id string) error { _, err := w.board.ResumeTask(ctx, as, id, &answer); return err }},
		{"ResumeAnotherOrgs", "ana", acme, "resume", `{"answer": "yes"}`, func(as, id string) error { _, err := w.board.ResumeTask(ctx, as, id, &answer); return err }},
		{"MessageToNobody", "ana", open, "message", `{"body": "hi", "to": "ghost"}`, func(as, id string) error {
			_, err := w.board.MessageTask(ctx, as, id, "hi", ptr("ghost"))
			return err
		}},
		{"MessageBlank", "ana", open, "message", `{"body": "  "}`, func(as, id string) error { _, err := w.board.MessageTask(ctx, as, id, "  ", nil); return err }},
		{"MessageAnotherOrgs", "ana", acme, "message", `{"body": "hi"}`, func(as, id string) error { _, err := w.board.MessageTask(ctx, as, id, "hi", nil); return err }},
		{"AnswerNothingAsked", "ana", open, "answer", `{"answer": "yes"}`, func(as, id string) error { _, err := w.board.ChangeTaskAnswer(ctx, as, id, "yes"); return err }},
		{"ReleaseNotHeld", "ana", open, "release", "", func(as, id string) error { _, err := w.board.ReleaseTask(ctx, as, id); return err }},
		{"EditNothing", "ana", open, "edit", `{}`, func(as, id string) error { _, err := w.board.EditTask(ctx, as, id, nil, nil); return err }},
		{"EditBlankTitle", "ana", open, "edit", `{"title": "  "}`, func(as, id string) error { _, err := w.board.EditTask(ctx, as, id, ptr("  "), nil); return err }},
		{"AssignToNobodyKnown", "ana", open, "assign", `{"agent": "ghost"}`, func(as, id string) error { _, err := w.board.AssignTask(ctx, as, id, "ghost"); return err }},
		{"CancelMissing", "ana", missing, "cancel", "", func(as, id string) error { _, err := w.board.CancelTask(ctx, as, id, ""); return err }},
		{"CancelAnotherOrgs", "ana", acme, "cancel", `{"reason": "no"}`, func(as, id string) error { _, err := w.board.CancelTask(ctx, as, id, "no"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := w.Count(`SELECT count(*) FROM tasks WHERE status = 'submitted'`) + w.Count(`SELECT count(*) FROM task_messages`)
			api := w.Admin(tc.as, "POST", "/tasks/"+tc.task+"/"+tc.decision, tc.body)
			err := tc.call(tc.as, tc.task)
			require.Error(t, err)
			pub := errs.Public(err)
			require.Equal(t, api.Body["error"], string(pub.Code), api.Raw)
			require.Equal(t, api.Body["message"], pub.Message)
			require.Equal(t, before, w.Count(`SELECT count(*) FROM tasks WHERE status = 'submitted'`)+w.Count(`SELECT count(*) FROM task_messages`))
		})
	}
	// A viewer is refused by both, forbidden.
	_, err := w.board.ApproveTask(ctx, "vic", open, true)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	require.Equal(t, 403, w.Admin("vic", "POST", "/tasks/"+open+"/approve", "").Status)
}

// A person may change the answer given on resume while the agent that
// asked has not read it: the task and the message carry the new words, the
// overview lists it until then, and the log keeps the old answer. Once the
// agent has read it, or the task was claimed, a change is refused and
// nothing changes.
func TestPeopleChangeAnAnswerUntilTheAgentReadsIt(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Which DB?", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": w.Root("gemini-web"), "result": "Postgres or SQLite?"})
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "answer", `{"answer": "too early"}`) // not answered yet
	w.decide("ana", id, "resume", `{"answer": "SQLite"}`)

	answered := func() []any {
		r := w.Admin("vic", "GET", "/overview", "")
		require.Equal(t, 200, r.Status, r.Raw)
		return r.Body["answered"].([]any)
	}
	list := answered()
	require.Len(t, list, 1)
	require.Equal(t, "ana", list[0].(map[string]any)["answered_by"])
	require.Equal(t, "SQLite", list[0].(map[string]any)["task"].(map[string]any)["answer"])

	require.Equal(t, http.StatusForbidden, w.Admin("vic", "POST", "/tasks/"+id+"/answer", `{"answer": "x"}`).Status)
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "answer", `{"answer": "   "}`)
	w.decide("ana", id, "answer", `{"answer": "PostgreSQL, after all"}`)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.task.answer' AND e.outcome = 'ok' AND p.content->>'was' = 'SQLite'`), "the log keeps the old answer")

	got := w.OK("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 0, "task_id": id})
	require.Len(t, got["messages"], 1, "one answer, changed in place: %v", got)
	require.Equal(t, "PostgreSQL, after all", got["messages"].([]any)[0].(map[string]any)["body"])
	require.Empty(t, answered(), "read: no longer changeable")
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "answer", `{"answer": "MySQL"}`)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND answer = 'PostgreSQL, after all'`, id))

	// A claimed task's answer is acted on: no change either.
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": w.Root("gemini-web"), "result": "Which version?"})
	w.decide("ana", id, "resume", `{"answer": "17"}`)
	require.Len(t, answered(), 1)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	require.Empty(t, answered())
	w.refusedAdmin(errs.InvalidRequest, "ana", id, "answer", `{"answer": "16"}`)
}

// People's task actions act in exactly the states they apply to
// (BOARD-009). The population: every status the tasks table allows (its
// CHECK, read from the database), each unassigned and held where the table
// allows it, input_required deferred and not, crossed with every action a
// person takes on a task (approve, reject, resume, release, assign, edit,
// cancel). Which states each applies to is the state machine of
// docs/specs/behavior.md §7.2 and §10.2, open and terminal as the
// database's task_status_is_open defines them; every other state is
// refused invalid_request with the task left as it was.
func TestPeopleTaskActionsApplyOnlyInTheirStates(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	var def string
	require.NoError(t, w.DB.NewRaw(`SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'tasks'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%submitted%'`).
		Scan(ctx, &def))
	var statuses []string
	for _, m := range regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(def, -1) {
		statuses = append(statuses, m[1])
	}
	require.Contains(t, statuses, "auth_required", def)

	type state struct {
		status         string
		held, deferred bool
		open           bool
	}
	actions := []struct {
		name, body string
		applies    func(s state) bool
	}{
		{"approve", "", func(s state) bool { return s.status == "auth_required" }},
		{"reject", "", func(s state) bool { return s.status == "auth_required" }},
		{"resume", `{"answer": "yes"}`, func(s state) bool { return s.status == "input_required" && s.deferred }},
		{"release", "", func(s state) bool { return s.status == "working" && s.held }},
		{"assign", `{"agent": "runner-web"}`, func(s state) bool { return s.open && !s.held }},
		{"edit", `{"title": "Renamed"}`, func(s state) bool { return s.open }},
		{"cancel", `{"reason": "not needed"}`, func(s state) bool { return s.open }},
	}
	snapshot := func(id string) string {
		var row string
		require.NoError(t, w.DB.NewRaw(`SELECT row(status, assignee, deferred, title, delegate_to, approved_by)::text FROM tasks WHERE id = ?`, id).
			Scan(ctx, &row))
		return row
	}
	tried, accepted := 0, map[string]int{}
	for _, status := range statuses {
		var open bool
		require.NoError(t, w.DB.NewRaw(`SELECT task_status_is_open(?)`, status).Scan(ctx, &open))
		for _, held := range []bool{false, true} {
			for _, deferred := range []bool{false, true} {
				s := state{status: status, held: held, deferred: deferred, open: open}
				for _, a := range actions {
					name := fmt.Sprintf("%s %+v", a.name, s)
					task := w.post("code-web", "web", "Job", nil)
					if held {
						w.OK("gemini-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": w.Root("gemini-web")})
					}
					if _, err := w.DB.ExecContext(ctx, `UPDATE tasks SET status = ?, deferred = ? WHERE id = ?`, status, deferred, task); err != nil {
						require.Contains(t, err.Error(), "check constraint", name)
						break // the table holds no such task
					}
					before := snapshot(task)
					r := w.Admin("ana", "POST", "/tasks/"+task+"/"+a.name, a.body)
					tried++
					if a.applies(s) {
						require.Equal(t, 200, r.Status, "%s: %s", name, r.Raw)
						accepted[a.name]++
						continue
					}
					require.Equal(t, string(errs.InvalidRequest), r.Body["error"], "%s: %s", name, r.Raw)
					require.Equal(t, before, snapshot(task), "%s: a refused action leaves the task as it was", name)
				}
			}
		}
	}
	for _, a := range actions {
		require.NotZero(t, accepted[a.name], "%s applies in no state the table allows", a.name)
	}
	t.Logf("%d actions tried, accepted: %v", tried, accepted)
	w.VerifyLog()
}
