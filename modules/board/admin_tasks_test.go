package board_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth"
	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/plugintest"
)

// adminWorld is a world whose kernel also serves the Admin API, with people
// of each role signing in through a real issuer, and organization acme
// owning a project, an agent and a task.
type adminWorld struct {
	*world
	iss      *authtest.Issuer
	cfg      *boot.Config
	acmeTask string
}

func newAdminWorld(t *testing.T) *adminWorld {
	t.Helper()
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	ctx := context.Background()
	w := &world{t: t, d: pgtest.New(t), roots: map[string]string{}, tokens: map[string]string{}, sessions: map[string]*mcp.ClientSession{}}
	a := &adminWorld{world: w, iss: authtest.New(t)}
	var err error
	a.cfg, err = boot.Load(func(string) string { return "" })
	require.NoError(t, err)
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	log := ledger.New(nil)
	w.mandates = mandate.NewService(keys, nil)
	w.ident = identity.NewService(w.d, log, w.mandates, nil)
	w.hub = events.NewHub(w.d.Pool, nil)
	hubCtx, stopHub := context.WithCancel(context.Background())
	go func() { _ = w.hub.Run(hubCtx) }()
	t.Cleanup(stopHub)
	admin := auth.NewAdmin(w.ident, auth.Options{Issuer: plugintest.Issuer(t, a.iss), Audience: a.cfg.AdminAudience, RequireMFA: true})
	w.k = kernel.New(kernel.Deps{DB: w.d, Log: log, Mandates: w.mandates, Identity: w.ident, Events: w.hub,
		Config: a.cfg, AdminAuth: admin})
	w.board = board.New()
	require.NoError(t, w.k.Register(w.board, mcpserve.New(mcpserve.Options{Resources: w.k.Resources(), PublicURL: "http://board.test"})))
	w.srv = httptest.NewServer(w.k.Handler())
	t.Cleanup(w.srv.Close)

	_, err = w.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	for id, role := range map[string]identity.Role{"val": identity.Approver, "vic": identity.Viewer} {
		_, err = w.ident.AddHuman(ctx, "ana", identity.HumanInput{ID: id, Name: id, Role: role, Email: id + "@example.com"})
		require.NoError(t, err)
	}
	for _, p := range []string{"web", "api"} {
		_, err := w.ident.AddProject(ctx, "ana", p, p, false)
		require.NoError(t, err)
	}
	w.agent("code-web", "code", nil, "web")
	w.agent("chat-web", "chat", nil, "web", "api")
	w.agent("gemini-web", "gemini", nil, "web")

	// Organization acme, with its own agent, mandate, task, message and entry.
	a.acmeTask = "11111111-1111-4111-8111-111111111111"
	w.exec(`INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');
		INSERT INTO agents (id, org_id, owner, client) VALUES ('code-rocket', 'acme', 'bo', 'code');
		INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('code-rocket', 'rocket', 'acme');
		INSERT INTO mandates (id, issuer_kind, issuer, holder, scope, delegations_left, depth, expires_at, signature)
			VALUES ('22222222-2222-4222-8222-222222222222', 'human', 'bo', 'code-rocket', '{task.work@project:rocket}', 1, 0,
				now() + interval '1 day', 'x');
		INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
			VALUES ('11111111-1111-4111-8111-111111111111', 'rocket', 'Acme secret', 'code-rocket',
				'22222222-2222-4222-8222-222222222222', 'auth_required');
		INSERT INTO task_messages (org_id, task_id, from_agent, body)
			VALUES ('acme', '11111111-1111-4111-8111-111111111111', 'code-rocket', 'acme words')`)
	_, err = w.ident.AddProject(ctx, "bo", "launch", "Launch", false)
	require.NoError(t, err, "an acme entry in acme's chain")
	return a
}

type taskReply struct {
	status int
	raw    string
	body   map[string]any
}

// api calls the Admin API as person as with body (JSON text, "" for none).
func (a *adminWorld) api(as, method, path, body string) taskReply {
	t := a.t
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.srv.URL+"/admin/api"+path, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+a.iss.Token(t, authtest.Claims{Subject: "sub-" + as, Email: as + "@example.com",
		EmailVerified: true, Audience: []string{a.cfg.AdminAudience}}))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := taskReply{status: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func taskIDs(list any) []string {
	var out []string
	for _, x := range list.([]any) {
		out = append(out, x.(map[string]any)["id"].(string))
	}
	return out
}

func TestAdminTaskListAndTrace(t *testing.T) {
	a := newAdminWorld(t)
	first := a.post("code-web", "web", "First", nil)
	deploy := a.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	later := a.post("chat-web", "api", "Later", nil)
	a.ok("code-web", "pact_message", map[string]any{"task_id": first, "to": "human", "body": "hello people",
		"mandate_id": a.roots["code-web"]})

	got := a.api("vic", "GET", "/tasks", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, []string{later, deploy, first}, taskIDs(got.body["tasks"]), "newest update first, only ana's organization")
	require.NotContains(t, got.raw, "Acme secret")
	for q, want := range map[string][]string{
		"?status=auth_required": {deploy}, "?project=api": {later}, "?agent=chat-web": {later},
		"?open=1&project=web": {deploy, first}, "?deferred=1": nil, "?project=rocket": nil,
	} {
		got := a.api("vic", "GET", "/tasks"+q, "")
		require.Equal(t, 200, got.status, got.raw)
		if want == nil {
			require.Empty(t, got.body["tasks"], q)
			continue
		}
		require.Equal(t, want, taskIDs(got.body["tasks"]), q)
	}
	require.Equal(t, http.StatusUnprocessableEntity, a.api("vic", "GET", "/tasks?status=lost", "").status)

	got = a.api("vic", "GET", "/tasks/"+first, "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, first, got.body["task"].(map[string]any)["id"])
	entries := got.body["entries"].([]any)
	require.NotEmpty(t, entries)
	e := entries[0].(map[string]any)
	require.Equal(t, "pact_post", e["action"])
	require.Equal(t, false, e["payload_erased"])
	require.NotNil(t, e["payload"])
	mandates := got.body["mandates"].([]any)
	require.Equal(t, a.roots["code-web"], mandates[0].(map[string]any)["id"], "the root it was posted under")
	msgs := got.body["messages"].([]any)
	require.Len(t, msgs, 1)
	require.Equal(t, "hello people", msgs[0].(map[string]any)["body"])
	require.Nil(t, msgs[0].(map[string]any)["to_agent"])

	got = a.api("vic", "GET", "/overview", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, false, got.body["halted"])
	require.Equal(t, 3.0, got.body["agents_by_status"].(map[string]any)["active"])
	require.Equal(t, []string{deploy}, taskIDs(got.body["pending_approvals"]))
	require.Empty(t, got.body["deferred"])
	require.Len(t, got.body["tasks"], 3, "web/submitted, web/auth_required, api/submitted")
	require.NotContains(t, got.raw, "rocket")
}

func TestAdminTaskDecisions(t *testing.T) {
	a := newAdminWorld(t)
	deploy := a.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	got := a.api("val", "POST", "/tasks/"+deploy+"/approve", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "submitted", got.body["status"])
	got = a.api("val", "POST", "/tasks/"+deploy+"/approve", "")
	require.Equal(t, http.StatusBadRequest, got.status)
	require.Equal(t, "invalid_request", got.body["error"])

	pay := a.post("code-web", "web", "Pay", map[string]any{"action": "deploy.web"})
	got = a.api("val", "POST", "/tasks/"+pay+"/reject", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "rejected", got.body["status"])

	// Held, then released, then deferred and resumed with an answer.
	job := a.post("code-web", "web", "Job", nil)
	a.ok("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": a.roots["gemini-web"]})
	got = a.api("val", "POST", "/tasks/"+job+"/message", `{"body": "use sk-ant-api03-`+strings.Repeat("a", 40)+` please"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "gemini-web", got.body["to"], "the holder by default")
	require.Equal(t, 1, a.count(`SELECT count(*) FROM task_messages WHERE from_human = 'val' AND to_agent = 'gemini-web'
		AND body NOT LIKE '%aaaaaaaaaa%'`), "redacted")
	require.Equal(t, 1, a.count(`SELECT count(*) FROM entries WHERE action = 'admin.task.message' AND outcome = 'ok'`))
	got = a.api("val", "POST", "/tasks/"+job+"/release", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "submitted", got.body["status"])
	require.Nil(t, got.body["assignee"])
	a.ok("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": a.roots["gemini-web"]})
	a.ok("gemini-web", "pact_report", map[string]any{"task_id": job, "status": "input_required",
		"mandate_id": a.roots["gemini-web"], "result": "Which region?"})
	got = a.api("val", "POST", "/tasks/"+job+"/resume", `{"answer": "eu-west"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "eu-west", got.body["answer"])
	got = a.api("val", "POST", "/tasks/"+job+"/resume", "")
	require.Equal(t, http.StatusBadRequest, got.status, "not deferred any more")

	got = a.api("val", "POST", "/tasks/"+job+"/edit", `{"title": "Job in eu-west"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "Job in eu-west", got.body["title"])
	got = a.api("val", "POST", "/tasks/"+job+"/edit", `{"title": "  "}`)
	require.Equal(t, http.StatusBadRequest, got.status, got.raw)

	got = a.api("val", "POST", "/tasks/"+job+"/assign", `{"agent": "code-web"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "code-web", got.body["delegate_to"])
	got = a.api("val", "POST", "/tasks/"+job+"/assign", `{"agent": "ghost"}`)
	require.Equal(t, http.StatusConflict, got.status, got.raw)
	require.Equal(t, "agent_unknown", got.body["error"])
	got = a.api("val", "POST", "/tasks/"+job+"/assign", `{"agent": null}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Nil(t, got.body["delegate_to"])

	got = a.api("val", "POST", "/tasks/"+job+"/message", `{"body": "hi", "to": "code-rocket"}`)
	require.Equal(t, http.StatusConflict, got.status, got.raw)
	require.Equal(t, "agent_unknown", got.body["error"], "another organization's agent is nobody here")
	got = a.api("val", "POST", "/tasks/"+job+"/message", `{"body": "  "}`)
	require.Equal(t, http.StatusBadRequest, got.status, got.raw)

	got = a.api("val", "POST", "/tasks/"+job+"/cancel", `{"reason": "not needed"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "canceled", got.body["task"].(map[string]any)["status"])
	got = a.api("val", "POST", "/tasks/"+job+"/message", `{"body": "late"}`)
	require.Equal(t, http.StatusBadRequest, got.status, "a closed thread")
	got = a.api("val", "POST", "/tasks/"+job+"/cancel", "")
	require.Equal(t, http.StatusBadRequest, got.status)
	a.verifyLog()
}

func TestAdminTaskBadInput(t *testing.T) {
	a := newAdminWorld(t)
	id := a.post("code-web", "web", "Job", nil)
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
			got := a.api("ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.Contains(t, []any{"invalid_request", "not_found"}, got.body["error"], got.raw)
		})
	}
	require.Equal(t, 1, a.count(`SELECT count(*) FROM tasks WHERE id = ? AND title = 'Job' AND body = ''`, id))
}

func TestAdminTaskAnotherOrganizationsTaskIsMissing(t *testing.T) {
	a := newAdminWorld(t)
	missing := "33333333-3333-4333-8333-333333333333"
	for _, tc := range []struct{ method, suffix, body string }{
		{"GET", "", ""}, {"POST", "/approve", ""}, {"POST", "/reject", ""}, {"POST", "/resume", `{"answer": "x"}`},
		{"POST", "/release", ""}, {"POST", "/edit", `{"title": "x"}`}, {"POST", "/assign", `{"agent": "code-rocket"}`},
		{"POST", "/message", `{"body": "x"}`}, {"POST", "/cancel", ""},
	} {
		other := a.api("ana", tc.method, "/tasks/"+a.acmeTask+tc.suffix, tc.body)
		none := a.api("ana", tc.method, "/tasks/"+missing+tc.suffix, tc.body)
		require.Equal(t, http.StatusNotFound, other.status, tc.suffix+": "+other.raw)
		require.Equal(t, strings.ReplaceAll(none.raw, missing, "?"), strings.ReplaceAll(other.raw, a.acmeTask, "?"))
	}
	require.Equal(t, 1, a.count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'auth_required' AND title = 'Acme secret'`, a.acmeTask))
	require.Equal(t, 1, a.count(`SELECT count(*) FROM task_messages WHERE task_id = ?`, a.acmeTask))
}

// TestAdminTaskOperationsForEachRole calls every task operation as each
// role: reads from viewer up, decisions from approver up.
func TestAdminTaskOperationsForEachRole(t *testing.T) {
	a := newAdminWorld(t)
	type op struct {
		method, path, body string
		min                identity.Role
	}
	roles := []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}}
	for _, r := range roles {
		deploy := a.post("code-web", "web", "Deploy "+r.id, map[string]any{"action": "deploy.web"})
		reject := a.post("code-web", "web", "Reject "+r.id, map[string]any{"action": "deploy.web"})
		job := a.post("code-web", "web", "Job "+r.id, nil)
		a.ok("gemini-web", "pact_claim", map[string]any{"task_id": job, "mandate_id": a.roots["gemini-web"]})
		deferred := a.post("code-web", "web", "Ask "+r.id, nil)
		a.exec(`UPDATE tasks SET status = 'input_required', deferred = true, defer_reason = 'why' WHERE id = ?`, deferred)
		open := a.post("code-web", "web", "Open "+r.id, nil)
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
			t.Run(fmt.Sprintf("%s %s/%s", o.method, o.path, r.role), func(t *testing.T) {
				got := a.api(r.id, o.method, o.path, o.body)
				if r.role.AtLeast(o.min) {
					require.Equal(t, 200, got.status, got.raw)
					return
				}
				require.Equal(t, http.StatusForbidden, got.status, got.raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs %s", r.id, r.role, o.min)}, got.body)
			})
		}
	}
}
