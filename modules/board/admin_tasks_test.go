package board_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

func taskIDs(list any) []string {
	var out []string
	for _, x := range list.([]any) {
		out = append(out, x.(map[string]any)["id"].(string))
	}
	return out
}

func TestAdminTaskListAndTrace(t *testing.T) {
	w := newWorld(t)
	w.acme()
	first := w.post("code-web", "web", "First", nil)
	deploy := w.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	later := w.post("chat-web", "api", "Later", nil)
	w.OK("code-web", "pact_message", map[string]any{"task_id": first, "to": "human", "body": "hello people",
		"mandate_id": w.Root("code-web")})

	got := w.Admin("vic", "GET", "/tasks", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, []string{later, deploy, first}, taskIDs(got.Body["tasks"]), "newest update first, only ana's organization")
	require.NotContains(t, got.Raw, "Acme secret")
	for q, want := range map[string][]string{
		"?status=auth_required": {deploy}, "?project=api": {later}, "?agent=chat-web": {later},
		"?open=1&project=web": {deploy, first}, "?deferred=1": nil, "?project=rocket": nil,
	} {
		got := w.Admin("vic", "GET", "/tasks"+q, "")
		require.Equal(t, 200, got.Status, got.Raw)
		if want == nil {
			require.Empty(t, got.Body["tasks"], q)
			continue
		}
		require.Equal(t, want, taskIDs(got.Body["tasks"]), q)
	}
	require.Equal(t, http.StatusUnprocessableEntity, w.Admin("vic", "GET", "/tasks?status=lost", "").Status)

	got = w.Admin("vic", "GET", "/tasks/"+first, "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, first, got.Body["task"].(map[string]any)["id"])
	entries := got.Body["entries"].([]any)
	require.NotEmpty(t, entries)
	e := entries[0].(map[string]any)
	require.Equal(t, "pact_post", e["action"])
	require.Equal(t, false, e["payload_erased"])
	require.NotNil(t, e["payload"])
	mandates := got.Body["mandates"].([]any)
	require.Equal(t, w.Root("code-web"), mandates[0].(map[string]any)["id"], "the root it was posted under")
	msgs := got.Body["messages"].([]any)
	require.Len(t, msgs, 1)
	require.Equal(t, "hello people", msgs[0].(map[string]any)["body"])
	require.Nil(t, msgs[0].(map[string]any)["to_agent"])

	got = w.Admin("vic", "GET", "/overview", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, false, got.Body["halted"])
	require.Equal(t, 4.0, got.Body["agents_by_status"].(map[string]any)["active"])
	require.Equal(t, []string{deploy}, taskIDs(got.Body["pending_approvals"]))
	require.Empty(t, got.Body["deferred"])
	require.Len(t, got.Body["tasks"], 3, "web/submitted, web/auth_required, api/submitted")
	require.NotContains(t, got.Raw, "rocket")
}

func TestAdminTaskDecisions(t *testing.T) {
	w := newWorld(t)
	w.acme()
	deploy := w.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	got := w.Admin("val", "POST", "/tasks/"+deploy+"/approve", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "submitted", got.Body["status"])
	got = w.Admin("val", "POST", "/tasks/"+deploy+"/approve", "")
	require.Equal(t, http.StatusBadRequest, got.Status)
	require.Equal(t, "invalid_request", got.Body["error"])

	pay := w.post("code-web", "web", "Pay", map[string]any{"action": "deploy.web"})
	got = w.Admin("val", "POST", "/tasks/"+pay+"/reject", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "rejected", got.Body["status"])

	// Held, then released, then deferred and resumed with an answer.
	job := w.post("code-web", "web", "Job", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": w.Root("gemini-web")})
	got = w.Admin("val", "POST", "/tasks/"+job+"/message", `{"body": "use sk-ant-api03-`+strings.Repeat("a", 40)+` please"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "gemini-web", got.Body["to"], "the holder by default")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE from_human = 'val' AND to_agent = 'gemini-web'
		AND body NOT LIKE '%aaaaaaaaaa%'`), "redacted")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.task.message' AND outcome = 'ok'`))
	got = w.Admin("val", "POST", "/tasks/"+job+"/release", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "submitted", got.Body["status"])
	require.Nil(t, got.Body["assignee"])
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": job, "status": "input_required",
		"mandate_id": w.Root("gemini-web"), "result": "Which region?"})
	got = w.Admin("val", "POST", "/tasks/"+job+"/resume", `{"answer": "eu-west"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "eu-west", got.Body["answer"])
	got = w.Admin("val", "POST", "/tasks/"+job+"/resume", "")
	require.Equal(t, http.StatusBadRequest, got.Status, "not deferred any more")

	got = w.Admin("val", "POST", "/tasks/"+job+"/edit", `{"title": "Job in eu-west"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "Job in eu-west", got.Body["title"])
	got = w.Admin("val", "POST", "/tasks/"+job+"/edit", `{"title": "  "}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)

	got = w.Admin("val", "POST", "/tasks/"+job+"/assign", `{"agent": "code-web"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "code-web", got.Body["delegate_to"])
	got = w.Admin("val", "POST", "/tasks/"+job+"/assign", `{"agent": "ghost"}`)
	require.Equal(t, http.StatusConflict, got.Status, got.Raw)
	require.Equal(t, "agent_unknown", got.Body["error"])
	got = w.Admin("val", "POST", "/tasks/"+job+"/assign", `{"agent": null}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Nil(t, got.Body["delegate_to"])

	got = w.Admin("val", "POST", "/tasks/"+job+"/message", `{"body": "hi", "to": "code-rocket"}`)
	require.Equal(t, http.StatusConflict, got.Status, got.Raw)
	require.Equal(t, "agent_unknown", got.Body["error"], "another organization's agent is nobody here")
	got = w.Admin("val", "POST", "/tasks/"+job+"/message", `{"body": "  "}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)

	got = w.Admin("val", "POST", "/tasks/"+job+"/cancel", `{"reason": "not needed"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "canceled", got.Body["task"].(map[string]any)["status"])
	got = w.Admin("val", "POST", "/tasks/"+job+"/message", `{"body": "late"}`)
	require.Equal(t, http.StatusBadRequest, got.Status, "a closed thread")
	got = w.Admin("val", "POST", "/tasks/"+job+"/cancel", "")
	require.Equal(t, http.StatusBadRequest, got.Status)
	w.VerifyLog()
}

func TestAdminTaskBadInput(t *testing.T) {
	w := newWorld(t)
	w.acme()
	id := w.post("code-web", "web", "Job", nil)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"UnknownDecision", "POST", "/tasks/" + id + "/explode", "", http.StatusNotFound},
		{"MalformedID", "GET", "/tasks/not-a-uuid", "", http.StatusUnprocessableEntity},
		{"MalformedJSON", "POST", "/tasks/" + id + "/message", `{"body": `, http.StatusBadRequest},
		{"UnknownField", "POST", "/tasks/" + id + "/edit", `{"title": "x", "admin": true}`, http.StatusUnprocessableEntity},
		{"WrongType", "POST", "/tasks/" + id + "/assign", `{"agent": 7}`, http.StatusUnprocessableEntity},
		{"LongMessage", "POST", "/tasks/" + id + "/message", `{"body": "` + strings.Repeat("m", 8001) + `"}`, http.StatusUnprocessableEntity},
		{"Oversize", "POST", "/tasks/" + id + "/edit", `{"body": "` + strings.Repeat("b", 600<<10) + `"}`, http.StatusRequestEntityTooLarge},
		{"NothingToEdit", "POST", "/tasks/" + id + "/edit", `{}`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := w.Admin("ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Contains(t, []any{"invalid_request", "not_found"}, got.Body["error"], got.Raw)
		})
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND title = 'Job' AND body = ''`, id))
}

func TestAdminTaskAnotherOrganizationsTaskIsMissing(t *testing.T) {
	w := newWorld(t)
	acme := w.acme()
	missing := "33333333-3333-4333-8333-333333333333"
	for _, tc := range []struct{ method, suffix, body string }{
		{"GET", "", ""}, {"POST", "/approve", ""}, {"POST", "/reject", ""}, {"POST", "/resume", `{"answer": "x"}`},
		{"POST", "/release", ""}, {"POST", "/edit", `{"title": "x"}`}, {"POST", "/assign", `{"agent": "code-rocket"}`},
		{"POST", "/message", `{"body": "x"}`}, {"POST", "/cancel", ""},
	} {
		other := w.Admin("ana", tc.method, "/tasks/"+acme+tc.suffix, tc.body)
		none := w.Admin("ana", tc.method, "/tasks/"+missing+tc.suffix, tc.body)
		require.Equal(t, http.StatusNotFound, other.Status, tc.suffix+": "+other.Raw)
		require.Equal(t, strings.ReplaceAll(none.Raw, missing, "?"), strings.ReplaceAll(other.Raw, acme, "?"))
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'auth_required' AND title = 'Acme secret'`, acme))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ?`, acme))
}

// TestAdminTaskOperationsForEachRole calls every task operation as each
// role: reads from viewer up, decisions from approver up.
func TestAdminTaskOperationsForEachRole(t *testing.T) {
	w := newWorld(t)
	w.acme()
	type op struct {
		method, path, body string
		min                identity.Role
	}
	roles := kerneltest.Staff()
	for _, r := range roles {
		deploy := w.post("code-web", "web", "Deploy "+r.ID, map[string]any{"action": "deploy.web"})
		reject := w.post("code-web", "web", "Reject "+r.ID, map[string]any{"action": "deploy.web"})
		job := w.post("code-web", "web", "Job "+r.ID, nil)
		w.OK("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": w.Root("gemini-web")})
		deferred := w.post("code-web", "web", "Ask "+r.ID, nil)
		w.Exec(`UPDATE tasks SET status = 'input_required', deferred = true, defer_reason = 'why' WHERE id = ?`, deferred)
		open := w.post("code-web", "web", "Open "+r.ID, nil)
		ops := []op{
			{"GET", "/overview", "", identity.Viewer},
			{"GET", "/tasks", "", identity.Viewer},
			{"GET", "/tasks/" + job, "", identity.Viewer},
			{"POST", "/tasks/" + deploy + "/approve", "", identity.Approver},
			{"POST", "/tasks/" + reject + "/reject", "", identity.Approver},
			{"POST", "/tasks/" + deferred + "/resume", `{"answer": "yes"}`, identity.Approver},
			{"POST", "/tasks/" + job + "/message", `{"body": "hi"}`, identity.Approver},
			{"POST", "/tasks/" + job + "/release", "", identity.Approver},
			{"POST", "/tasks/" + open + "/edit", `{"body": "more"}`, identity.Approver},
			{"POST", "/tasks/" + open + "/assign", `{"agent": "gemini-web"}`, identity.Approver},
			{"POST", "/tasks/" + open + "/cancel", `{"reason": "done"}`, identity.Approver},
		}
		for _, o := range ops {
			t.Run(fmt.Sprintf("%s %s/%s", o.method, o.path, r.Role), func(t *testing.T) {
				got := w.Admin(r.ID, o.method, o.path, o.body)
				if r.Role.AtLeast(o.min) {
					require.Equal(t, 200, got.Status, got.Raw)
					return
				}
				kerneltest.RequireBelowRole(t, got, r, o.min)
			})
		}
	}
}
