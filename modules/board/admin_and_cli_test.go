package board_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/errs"
)

// pact-admin's task-approve, task-assign, task-cancel and task-list answer
// what they did: the changed task as the person's organization sees it, the
// mandate an assign revoked (none when there was no delegate), the mandates
// a cancel revoked as a list (empty, never null, when there were none), and
// the organization's tasks for the person --by names. The refusal paths are
// covered by TestCommandLineDecisionsRefuseAsTheAdminAPIDoes; this is the
// answer a person reads after a decision went through.
func TestCommandLineDecisionsAnswerWhatTheyChanged(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()

	// task-approve answers the approved task, now on the board.
	deploy := w.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	approved, err := w.board.ApproveTask(ctx, "ana", deploy, true)
	require.NoError(t, err)
	require.NotNil(t, approved)
	require.Equal(t, deploy, approved.ID)
	require.Equal(t, "submitted", approved.Status)

	// task-assign on a task nobody was delegated revokes nothing.
	plain := w.post("code-web", "web", "Plain", nil)
	assigned, err := w.board.AssignTask(ctx, "ana", plain, "runner-web")
	require.NoError(t, err)
	require.NotNil(t, assigned)
	require.Equal(t, plain, assigned.Task.ID)
	require.Equal(t, "runner-web", *assigned.DelegateTo)
	require.Nil(t, assigned.RevokedMandate, "no previous delegate, no revoked mandate")

	// task-assign away from a delegate names the delegate's revoked mandate.
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Delegated",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	assigned, err = w.board.AssignTask(ctx, "ana", id, "runner-web")
	require.NoError(t, err)
	require.NotNil(t, assigned.RevokedMandate)
	require.Equal(t, delegated, *assigned.RevokedMandate)

	// task-cancel: an undelegated task revokes nothing, answered as [];
	// a delegated one names the mandate it revoked.
	canceled, err := w.board.CancelTask(ctx, "ana", deploy, "not needed")
	require.NoError(t, err)
	require.NotNil(t, canceled)
	require.Equal(t, "canceled", canceled.Task.Status)
	raw, err := json.Marshal(canceled)
	require.NoError(t, err)
	require.Contains(t, string(raw), `"revoked":[]`, "no mandate revoked is an empty list, not null")
	post = w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Delegated too",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	other, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	canceled, err = w.board.CancelTask(ctx, "ana", other, "not needed")
	require.NoError(t, err)
	require.Equal(t, []string{delegated}, canceled.Revoked, "gemini-web's delegated mandate")

	// task-list for a viewer lists the organization's tasks; without --by
	// it is refused with a word on --by.
	listed, err := w.board.TasksFor(ctx, "vic", board.TaskFilter{Status: "canceled"})
	require.NoError(t, err)
	var ids []string
	for _, task := range listed {
		ids = append(ids, task.ID)
	}
	require.ElementsMatch(t, []string{deploy, other}, ids)
	_, err = w.board.TasksFor(ctx, "", board.TaskFilter{})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	require.Contains(t, errs.Public(err).Message, "--by")
	w.VerifyLog()
}

// The Admin API's cancel answers the mandates it revoked as a list: empty
// (not null) for a task nobody was delegated, the delegated mandate for one
// that was. A client iterating "revoked" must never meet null, and must see
// the mandate that died.
func TestAdminCancelAnswersTheRevokedMandatesAsAList(t *testing.T) {
	w := newWorld(t)
	plain := w.post("code-web", "web", "Plain", nil)
	got := w.decide("ana", plain, "cancel", `{"reason": "not needed"}`)
	require.Equal(t, []any{}, got.Body["revoked"], got.Raw)

	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Delegated",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	got = w.decide("ana", id, "cancel", `{"reason": "not needed"}`)
	require.Equal(t, []any{delegated}, got.Body["revoked"], got.Raw)
}

// A task as people see it over the Admin API carries its result once it
// has one, and its needed scope as a list: empty (not null) for a task
// that named none, the scopes an agent named when it deferred.
func TestAdminTaskShowsItsResultAndNeededScope(t *testing.T) {
	w := newWorld(t)
	task := func(id string) map[string]any {
		got := w.Admin("vic", "GET", "/tasks/"+id, "")
		require.Equal(t, 200, got.Status, got.Raw)
		return got.Body["task"].(map[string]any)
	}

	done := w.post("code-web", "web", "Done soon", nil)
	require.Nil(t, task(done)["result"], "no result yet")
	require.Equal(t, []any{}, task(done)["needed_scope"], "no scope named: an empty list")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": done, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": done, "status": "completed", "mandate_id": w.Root("gemini-web"),
		"result": map[string]any{"text": "Shipped", "handoff": "- Done: shipped"}})
	require.Equal(t, map[string]any{"text": "Shipped", "handoff": "- Done: shipped"}, task(done)["result"])

	stuck := w.post("code-web", "web", "Needs rights", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": stuck, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_defer", map[string]any{"task_id": stuck, "reason": "needs deploy rights", "mandate_id": w.Root("gemini-web"),
		"needed_scope": []any{"deploy.web@project:web"}})
	require.Equal(t, []any{"deploy.web@project:web"}, task(stuck)["needed_scope"])
}

// A person's release is logged with whom the task was taken from, so the
// log says whose work was interrupted.
func TestAdminReleaseLogsWhomItTookTheTaskFrom(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Job", nil)
	w.OK("runner-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("runner-web")})
	w.decide("ana", id, "release", "")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.task.release' AND e.outcome = 'ok' AND p.content->>'released_from' = 'runner-web'
		AND p.content->>'task_id' = ?`, id))
	w.VerifyLog()
}

// A brief's item keeps up to 600 characters whole; a longer one is cut to
// 600, its last one an ellipsis. Characters, not bytes, are counted.
func TestABriefItemIsCutAt600Characters(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Morning brief", map[string]any{"action": "report.brief"})
	briefs := w.Mandate("ana", "gemini-web", "report.brief@project:web", "task.read@project:web")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": briefs})
	fits, long := strings.Repeat("é", 600), strings.Repeat("ü", 601)
	report := map[string]any{"sections": []any{map[string]any{"title": "Long", "items": []any{fits, long}}}}
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": briefs,
		"result": map[string]any{"report": report, "handoff": "- Done: brief"}})
	var detail string
	require.NoError(t, w.DB.NewRaw(`SELECT detail FROM notifications WHERE kind = 'brief' AND task_id = ?`, id).Scan(context.Background(), &detail))
	var got struct {
		Sections []struct {
			Items []struct {
				Text string `json:"text"`
			} `json:"items"`
		} `json:"sections"`
	}
	require.NoError(t, json.Unmarshal([]byte(detail), &got), detail)
	require.Len(t, got.Sections, 1)
	require.Len(t, got.Sections[0].Items, 2)
	require.Equal(t, fits, got.Sections[0].Items[0].Text, "600 characters are kept whole")
	require.Equal(t, strings.Repeat("ü", 599)+"…", got.Sections[0].Items[1].Text, "601 are cut to 600")
}

// The Handoff artifact A2A hands back is the result's Handoff section:
// from its heading through its sub-headings, up to the next heading of the
// same level, which a heading written without a space ("##Handoff") is as
// well. What follows is not part of it.
func TestTheA2AHandoffArtifactEndsAtTheNextHeadingOfItsLevel(t *testing.T) {
	w := newA2AWorld(t)
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Fix the race", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	w.OK("code-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("code-web"),
		"result": "Fixed the race.\n\n## Handoff\n- Done: the wait\n### Checks\n- go test\n##Handoff (previous run)\n- Done: nothing\n## Notes\nmore"})
	arts := w.a2aResult("a2a-web", "GetTask", map[string]any{"id": id})["artifacts"].([]any)
	require.Len(t, arts, 2)
	handoff := arts[1].(map[string]any)
	require.Equal(t, "handoff", handoff["artifactId"])
	require.Equal(t, "## Handoff\n- Done: the wait\n### Checks\n- go test",
		handoff["parts"].([]any)[0].(map[string]any)["text"])
}

// A hook's session_id may be up to 200 characters (what hook_cursors
// stores): one of exactly 200 is answered and its cursor kept; 201 is
// refused (TestHookRefusals).
func TestAHookSessionIDOf200CharactersIsAccepted(t *testing.T) {
	w := newWorld(t)
	w.post("chat-web", "web", "Fix the login form", nil)
	session := strings.Repeat("s", 200)
	out := w.hookOK("code-web", "session-start", `{"session_id": "`+session+`"}`, nil)
	require.Contains(t, out["systemMessage"], "Fix the login form")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM hook_cursors WHERE agent_id = 'code-web' AND session_id = ?`, session))
}
