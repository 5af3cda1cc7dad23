package board_test

// Items of the original's checklist (docs/specs/behavior.md §13, §16) that
// no other test here showed; docs/specs/divergences.md names each.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

const handoff = "## Handoff\n- Done: test\n- Repo / branch / PR / commit: no code"

// A design agent claims and completes a task delegated to it; a cowork agent
// posts its own task, claims and completes it.
func TestDesignAndCoworkAgentsClaimAndComplete(t *testing.T) {
	w := newWorld(t)
	w.agent("design-web", "design", nil, "web")
	w.agent("cowork-web", "cowork", nil, "web")
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Mock-ups",
		"mandate_id": w.Root("code-web"), "delegate_to": "design-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'awaiting_session' AND agent_id = 'design-web'`),
		"a design agent works only while someone has it open")
	w.post("code-web", "web", "For the runner", map[string]any{"delegate_to": "runner-web"})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'awaiting_session'`), "a Runner needs no one")
	w.OK("design-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": delegated})
	out := w.OK("design-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": delegated, "result": handoff})
	require.Equal(t, "completed", out["status"])

	own := w.post("cowork-web", "web", "Own task", nil)
	w.OK("cowork-web", "pact_claim", map[string]any{"task_id": own, "mandate_id": w.Root("cowork-web")})
	w.OK("cowork-web", "pact_report", map[string]any{"task_id": own, "status": "completed", "mandate_id": w.Root("cowork-web"), "result": handoff})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed' AND assignee = 'design-web'`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed' AND assignee = 'cowork-web'
		AND created_by = 'cowork-web'`, own))
	w.VerifyLog()
}

// The entries of a delegated task's post, claim and report, and the
// revoke_on_close the report causes, all carry a chain whose root a person
// issued; revoke_on_close is the system's, with chain [root, child], and the
// poster's own root still works after it.
func TestEveryEntryOfADelegatedTaskTracesToAPerson(t *testing.T) {
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Traced",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": delegated})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": delegated, "result": handoff})

	require.Equal(t, 4, w.Count(`SELECT count(*) FROM entries e JOIN mandates r ON r.id = e.mandate_chain[1]
		WHERE e.task_id = ? AND e.outcome = 'ok' AND r.issuer_kind = 'human' AND r.issuer = 'ana' AND r.parent_id IS NULL
		AND e.action IN ('pact_post', 'pact_claim', 'pact_report', 'mandate.revoke_on_close')`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE task_id = ? AND action = 'mandate.revoke_on_close'
		AND actor = 'system' AND mandate_chain = ARRAY[?::uuid, ?::uuid]`, id, w.Root("code-web"), delegated))
	w.Refused(errs.MandateRevoked, "gemini-web", "pact_list", map[string]any{"mandate_id": delegated})
	w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})
	w.VerifyLog()
}

// A mandate naming a project its holder is no longer in reads nothing
// there: listing everything leaves the project out, listing it or claiming
// in it is project_mismatch.
func TestAMandateForAProjectTheAgentLeftReadsNothingThere(t *testing.T) {
	w := newWorld(t)
	api := w.post("chat-web", "api", "In api", nil)
	fresh := w.Mandate("ana", "chat-web", "task.read@project:api", "task.work@project:api")
	w.Exec(`DELETE FROM agent_projects WHERE agent_id = 'chat-web' AND project_id = 'api'`)
	all := w.OK("chat-web", "pact_list", map[string]any{"mandate_id": fresh, "filter": "all"})
	require.Empty(t, all["tasks"], "the project the agent left is not read")
	w.Refused(errs.ProjectMismatch, "chat-web", "pact_list", map[string]any{"mandate_id": fresh, "project_id": "api"})
	w.agent("code-api", "code", nil, "api")
	w.Exec(`DELETE FROM agent_projects WHERE agent_id = 'code-api'`)
	w.Exec(`INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('code-api', 'web', 'default')`)
	w.Refused(errs.ProjectMismatch, "code-api", "pact_claim", map[string]any{"task_id": api, "mandate_id": w.Root("code-api")})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted'`, api))
}

// A Runner never claims on a production project.
func TestRunnersCannotClaimOnProduction(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Ship", nil)
	w.Exec(`UPDATE projects SET production = true WHERE id = 'web'`)
	e := w.Refused(errs.ProjectMismatch, "runner-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("runner-web")})
	require.Contains(t, e.Message, "production")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
}

// An open task keeps its delegated mandate through defer and resume,
// input_required and resume, and approval: each time the same mandate
// claims it again. A deferred task shows in deferred with its needed_scope.
func TestOpenTasksKeepTheirDelegatedMandate(t *testing.T) {
	w := newWorld(t)
	live := func(m string) int {
		return w.Count(`SELECT count(*) FROM mandates WHERE id = ?::uuid AND revoked_at IS NULL`, m)
	}
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Long road",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	claim := map[string]any{"task_id": id, "mandate_id": delegated}

	w.OK("gemini-web", "pact_claim", claim)
	w.OK("gemini-web", "pact_defer", map[string]any{"task_id": id, "reason": "needs deploy rights", "mandate_id": delegated,
		"needed_scope": []any{"deploy.web@project:web"}})
	deferred := w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web"), "filter": "all"})["deferred"].([]any)
	require.Len(t, deferred, 1)
	require.Equal(t, []any{"deploy.web@project:web"}, deferred[0].(map[string]any)["needed_scope"])
	require.Equal(t, 1, live(delegated))
	w.decide("ana", id, "resume", "")
	w.OK("gemini-web", "pact_claim", claim)

	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": delegated, "result": "Which branch?"})
	require.Equal(t, 1, live(delegated))
	w.decide("ana", id, "resume", `{"answer": "main"}`)
	w.OK("gemini-web", "pact_claim", claim)
	require.Equal(t, 1, live(delegated))

	gated := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Deploy", "action": "deploy.web",
		"mandate_id": w.Mandate("ana", "code-web", "*@project:web"), "delegate_to": "gemini-web"})
	require.Equal(t, "auth_required", gated["status"])
	w.decide("ana", gated["task_id"].(string), "approve", "")
	require.Equal(t, 1, live(gated["delegated_mandate_id"].(string)))
	w.VerifyLog()
}

// The sweep (pact-admin migrate) revokes the delegated mandates of tasks
// closed before closing revoked them, once; open tasks keep theirs.
func TestSweepRevokesTheMandatesOfClosedTasks(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	closed := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Old",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	open := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Open",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	// Closed behind the board's back, as tasks were before the rule.
	w.Exec(`UPDATE tasks SET status = 'completed' WHERE id = ?`, closed["task_id"])
	sweep := func() int {
		var n int
		require.NoError(t, w.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
			n, err = w.board.SweepClosedTasks(ctx, tx)
			return err
		}))
		return n
	}
	require.Equal(t, 1, sweep())
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ?::uuid AND revoked_at IS NOT NULL`, closed["delegated_mandate_id"]))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ?::uuid AND revoked_at IS NULL`, open["delegated_mandate_id"]))
	require.Zero(t, sweep(), "a second sweep finds nothing")
	w.VerifyLog()
}

// filter=done lists the caller's closed tasks with their whole result;
// filter=mine only its open ones.
func TestDoneListsClosedTasksWithTheirResult(t *testing.T) {
	w := newWorld(t)
	finished, kept := w.post("code-web", "web", "Finished", nil), w.post("code-web", "web", "Kept", nil)
	for _, id := range []string{finished, kept} {
		w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	}
	result := map[string]any{"summary": "all green", "handoff": map[string]any{"branch": "feat/x"}}
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": finished, "status": "completed", "mandate_id": w.Root("gemini-web"), "result": result})
	list := func(filter string) []any {
		return w.OK("gemini-web", "pact_list", map[string]any{"mandate_id": w.Root("gemini-web"), "filter": filter})["tasks"].([]any)
	}
	done := list("done")
	require.Len(t, done, 1)
	require.Equal(t, finished, done[0].(map[string]any)["id"])
	require.Equal(t, result, done[0].(map[string]any)["result"])
	mine := list("mine")
	require.Len(t, mine, 1)
	require.Equal(t, kept, mine[0].(map[string]any)["id"])
}

// pact_list's head is 0 on an empty board and grows with its changes.
func TestListHeadGrowsWithTheBoard(t *testing.T) {
	w := newWorld(t)
	head := func() float64 {
		return w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})["head"].(float64)
	}
	require.Zero(t, head())
	w.post("code-web", "web", "First", nil)
	first := head()
	require.Positive(t, first)
	w.post("code-web", "web", "Second", nil)
	require.Greater(t, head(), first)
}

// A completed report.brief notifies people with a brief whose detail is
// the report's text, without its Handoff and redacted.
func TestACompletedBriefNotifiesItsText(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Morning brief", map[string]any{"action": "report.brief"})
	briefs := w.Mandate("ana", "gemini-web", "report.brief@project:web", "task.read@project:web")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": briefs})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": briefs,
		"result": "Three tasks done, token=abc123 rotated.\n\n" + handoff})
	var detail string
	require.NoError(t, w.DB.NewRaw(`SELECT detail FROM notifications WHERE kind = 'brief' AND task_id = ?`, id).Scan(context.Background(), &detail))
	require.Regexp(t, `^Three tasks done, token=\[REDACTED\] rotated\.`, detail)
	require.NotContains(t, detail, "Handoff")
	require.NotContains(t, detail, "abc123")
	require.Zero(t, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'task_closed' AND task_id = ?`, id), "a brief is its own notice")
}

// pact_list with parent_task_id lists that task's subtasks; a missing
// parent and another organization's task answer alike, not_found.
func TestSubtasksAreListedByParent(t *testing.T) {
	w := newWorld(t)
	parent := w.post("code-web", "web", "Parent", nil)
	child := w.post("code-web", "web", "Child", map[string]any{"parent_task_id": parent})
	w.post("code-web", "web", "Unrelated", nil)
	subs := w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web"), "filter": "all", "parent_task_id": parent})["tasks"].([]any)
	require.Len(t, subs, 1)
	require.Equal(t, child, subs[0].(map[string]any)["id"])

	const missing = "00000000-0000-4000-8000-000000000000"
	foreign := w.acme()
	a := w.Refused(errs.NotFound, "code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web"), "parent_task_id": missing})
	b := w.Refused(errs.NotFound, "code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web"), "parent_task_id": foreign})
	require.Equal(t, "task "+missing+" does not exist", a.Message)
	require.Equal(t, "task "+foreign+" does not exist", b.Message)
}

// input_required without a result asks "input required", not "null"
// (docs/specs/behavior.md §16).
func TestInputRequiredWithoutAQuestion(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Mute", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": w.Root("gemini-web")})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND deferred AND defer_reason = 'input required'`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications WHERE kind = 'question' AND task_id = ? AND detail = 'input required'`, id))
}

// A plain post, neither gated nor delegated, notifies nobody.
func TestAPlainPostNotifiesNobody(t *testing.T) {
	w := newWorld(t)
	w.post("code-web", "web", "Plain", nil)
	require.Zero(t, w.Count(`SELECT count(*) FROM notifications`))
	w.post("code-web", "web", "Gated", map[string]any{"action": "deploy.web"})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM notifications`), "the check can see a notification")
}

// Closing as failed or canceled needs a Handoff as completing does; refused,
// the task stays working and the delegated mandate live.
func TestEveryClosingStatusNeedsAHandoff(t *testing.T) {
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Risky",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": delegated})
	for _, status := range []string{"failed", "canceled"} {
		e := w.Refused(errs.HandoffRequired, "gemini-web", "pact_report", map[string]any{"task_id": id, "status": status,
			"mandate_id": delegated, "result": "gave up"})
		require.Contains(t, e.Message, "## Handoff")
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ?::uuid AND revoked_at IS NULL`, delegated))
	out := w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "failed", "mandate_id": delegated, "result": handoff})
	require.Equal(t, delegated, out["revoked_mandate"])
}

// After a stale claim is released, another agent claims and completes the
// task: the result is the new holder's, and the old holder is claim_lost.
func TestAReleasedClaimIsTheNewHoldersWork(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Handed on", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.Exec(`UPDATE task_activity SET at = now() - interval '31 minutes' WHERE task_id = ?`, id)
	w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})
	w.OK("runner-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("runner-web")})
	w.OK("runner-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("runner-web"),
		"result": "runner did it\n\n" + handoff})
	w.Refused(errs.ClaimLost, "gemini-web", "pact_report", map[string]any{"task_id": id, "status": "completed",
		"mandate_id": w.Root("gemini-web"), "result": "gemini did it\n\n" + handoff})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND assignee = 'runner-web' AND result::text LIKE '%runner did it%'`, id))
}

// Messages: an agent of another project is agent_unknown, another agent's
// mandate chain_broken, and once the task is closed its thread takes no
// more messages.
func TestMessagesToOtherProjectsAndOnClosedTasks(t *testing.T) {
	w := newWorld(t)
	w.agent("code-api", "code", nil, "api")
	id := w.post("code-web", "web", "Talk", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.Refused(errs.AgentUnknown, "gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web"),
		"body": "hi", "to": "code-api"})
	w.Refused(errs.ChainBroken, "gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web"), "body": "hi"})
	w.OK("gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web"), "body": "hi", "to": "runner-web"})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("gemini-web"), "result": handoff})
	w.Refused(errs.InvalidRequest, "code-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web"), "body": "thanks"})
}

// A halted organization refuses even pact_whoami, and answers again once
// unhalted.
func TestHaltedBoardRefusesWhoamiUntilUnhalted(t *testing.T) {
	w := newWorld(t)
	w.Exec(`UPDATE orgs SET halted = true WHERE id = 'default'`)
	w.Refused(errs.SystemHalted, "code-web", "pact_whoami", nil)
	w.Exec(`UPDATE orgs SET halted = false WHERE id = 'default'`)
	w.OK("code-web", "pact_whoami", nil)
}

// A person's message on a task goes to its doer by default, and the doer's
// pact_wait returns it from human:<person>.
func TestAPersonsMessageReachesTheDoersWait(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Asked", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	got := w.decide("val", id, "message", `{"body": "Use the staging database."}`)
	require.Equal(t, "gemini-web", got.Body["to"])
	out := w.OK("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 0, "task_id": id})
	msgs := out["messages"].([]any)
	require.Len(t, msgs, 1)
	require.Equal(t, "human:val", msgs[0].(map[string]any)["from"])
	require.Equal(t, "Use the staging database.", msgs[0].(map[string]any)["body"])
}

// Each accepted form of a handoff closes a task: a markdown section at any
// level and case, or an object with a non-empty handoff key in any case.
func TestEveryAcceptedHandoffClosesATask(t *testing.T) {
	w := newWorld(t)
	for _, result := range []any{
		"Did it.\n\n## Handoff\n- Done: all",
		"### handoff\n- Done: all",
		map[string]any{"handoff": map[string]any{"branch": "feat/x"}},
		map[string]any{"Handoff": "- Done: all"},
	} {
		id := w.post("code-web", "web", "Close me", nil)
		w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
		out := w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("gemini-web"), "result": result})
		require.Equal(t, "completed", out["status"], "%v", result)
	}
	require.Equal(t, 4, w.Count(`SELECT count(*) FROM tasks WHERE status = 'completed'`))
}

// A structured brief reaches its notification cleaned: sections without a
// title are dropped, task ids that are not UUIDs dropped, secrets redacted.
func TestAStructuredBriefIsCleanedForItsCard(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Morning brief", map[string]any{"action": "report.brief"})
	briefs := w.Mandate("ana", "gemini-web", "report.brief@project:web", "task.read@project:web")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": briefs})
	report := map[string]any{"greeting": "Good morning", "sections": []any{
		map[string]any{"title": "", "items": []any{"lost"}},
		map[string]any{"title": "Needs you", "items": []any{
			map[string]any{"text": "R3 done", "task_id": id},
			map[string]any{"text": "rotate token=abc123", "task_id": "bad id"},
		}},
	}}
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": briefs,
		"result": map[string]any{"report": report, "handoff": "- Done: brief"}})
	var detail string
	require.NoError(t, w.DB.NewRaw(`SELECT detail FROM notifications WHERE kind = 'brief' AND task_id = ?`, id).Scan(context.Background(), &detail))
	require.JSONEq(t, `{"greeting": "Good morning", "sections": [{"title": "Needs you", "items": [
		{"text": "R3 done", "task_id": "`+id+`"}, {"text": "rotate token=[REDACTED]"}]}]}`, detail)
}

// A message by the task's holder is a heartbeat, as a working report is
// (docs/specs/behavior.md §7.3).
func TestAHoldersMessageIsAHeartbeat(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Chatty job", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	w.Exec(`UPDATE task_activity SET at = now() - interval '29 minutes' WHERE task_id = ?`, id)
	w.OK("gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web"), "body": "still on it"})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_activity WHERE task_id = ? AND at > now() - interval '1 minute'`, id))
}
