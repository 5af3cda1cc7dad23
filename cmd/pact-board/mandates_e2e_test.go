package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/modules/people"
)

// mandateAdmin is the board, mandates and credentials modules behind a real Admin API server over a
// real database, with people signing in through a real issuer: in
// organization default ana (owner), val (approver) and vic (viewer), the
// projects web and api, the agents code-web (web, 3 delegations) and
// gemini-web (web); in organization acme bo (owner), the project rocket and
// the agent rocket-bot.
type mandateAdmin struct {
	*kerneltest.World
	d        *db.DB
	k        *kernel.Kernel
	ident    *identity.Service
	mandates *mandates.Module
	roots    map[string]string
}

func newMandateAdmin(t *testing.T) *mandateAdmin {
	t.Helper()
	ctx := context.Background()
	a := &mandateAdmin{mandates: mandates.New(), roots: map[string]string{}}
	a.World = kerneltest.New(t, kerneltest.Options{Modules: func(w *kerneltest.World) []kernel.Module {
		return []kernel.Module{board.New(), a.mandates, credentials.New(credentials.Options{Keys: w.Mandates.Keys()}), people.New()}
	}})
	a.d, a.k, a.ident = a.DB, a.Kernel, a.Identity
	a.Person("", "ana", identity.Owner)
	a.Person("ana", "val", identity.Approver)
	a.Person("ana", "vic", identity.Viewer)
	a.Project("ana", "web", false)
	a.Project("ana", "api", false)
	for _, ag := range []struct{ id, client string }{{"code-web", "code"}, {"gemini-web", "gemini"}} {
		a.roots[ag.id] = a.Agent("ana", kerneltest.AgentInput{ID: ag.id, Client: ag.client, Projects: []string{"web"},
			Delegations: ptr(3), Limits: map[string]float64{"tasks": 50}}).RootMandateID.String()
	}
	// A second organization: sign-up, which makes one through the services,
	// names it with a random suffix, and these tests name acme's rows.
	_, err := a.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role, email) VALUES ('bo', 'acme', 'Bo', 'owner', 'bo@example.com');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	require.NoError(t, err)
	a.roots["rocket-bot"] = a.Agent("bo", kerneltest.AgentInput{ID: "rocket-bot", Client: "code", Projects: []string{"rocket"}}).RootMandateID.String()
	return a
}

type adminReply struct {
	status int
	raw    string
	body   map[string]any
}

// call sends body (JSON text, or "" for none) as person as.
func (a *mandateAdmin) call(t *testing.T, as, method, path, body string) adminReply {
	t.Helper()
	r := a.Admin(as, method, path, body)
	return adminReply{status: r.Status, raw: r.Raw, body: r.Body}
}

func (a *mandateAdmin) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	return a.Count(q, args...)
}

// tool runs an MCP tool as agent through the kernel's pipeline.
func (a *mandateAdmin) tool(t *testing.T, agent, name string, args map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	out, err := a.k.Tools().Call(context.Background(), agent, name, raw)
	require.NoError(t, err, "%s %s", agent, name)
	b, err := json.Marshal(out)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// delegate has code-web post a task delegated to gemini-web and returns the
// task and its delegated mandate.
func (a *mandateAdmin) delegate(t *testing.T, title string) (task, delegated string) {
	t.Helper()
	out := a.tool(t, "code-web", "pact_post", map[string]any{"project_id": "web", "title": title,
		"mandate_id": a.roots["code-web"], "delegate_to": "gemini-web"})
	return out["task_id"].(string), out["delegated_mandate_id"].(string)
}

// root issues a further root mandate to code-web.
func (a *mandateAdmin) root(t *testing.T) string {
	t.Helper()
	m, err := a.mandates.IssueMandate(context.Background(), "ana", mandates.IssueInput{Holder: "code-web",
		Scope: []string{"task.read@project:web", "task.post@project:web"}, Limits: map[string]float64{"tasks": 7}, Delegations: ptr(2)})
	require.NoError(t, err)
	return m.ID.String()
}

// rows are the mandates, tasks and agents' roots a refusal must leave alone.
func (a *mandateAdmin) rows(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, a.d.NewRaw(`SELECT concat(
		(SELECT json_agg(m ORDER BY id) FROM mandates m),
		(SELECT json_agg(l ORDER BY mandate_id, limit_key) FROM limit_usage l),
		(SELECT json_agg(json_build_array(id, status, result, updated_at) ORDER BY id) FROM tasks),
		(SELECT json_agg(json_build_array(id, root_mandate_id) ORDER BY id) FROM agents))`).Scan(context.Background(), &s))
	return s
}

// state is everything a dry run must leave alone: the rows and the log.
func (a *mandateAdmin) state(t *testing.T) string {
	return fmt.Sprintf("%s entries=%d", a.rows(t), a.count(t, `SELECT count(*) FROM entries`))
}

func TestMandateOperationsForEachRole(t *testing.T) {
	a := newMandateAdmin(t)
	roles := kerneltest.Staff()
	ops := []struct {
		method, path, body string
		min                identity.Role
		ok                 int
	}{
		{"GET", "/mandates", "", identity.Viewer, 200},
		{"GET", "/mandates?all=1", "", identity.Viewer, 200},
		{"POST", "/mandates", `{"holder": "code-web", "scope": ["task.read@project:web"]}`, identity.Approver, 201},
		{"GET", "/mandates/{root}/impact", "", identity.Viewer, 200},
		{"POST", "/mandates/{root}/revoke", "", identity.Approver, 200},
		{"POST", "/mandates/{root}/replace", `{"scope": ["task.read@project:web"]}`, identity.Approver, 200},
	}
	for _, o := range ops {
		for _, r := range roles {
			t.Run(o.method+o.path+"/"+string(r.Role), func(t *testing.T) {
				before := a.count(t, `SELECT count(*) FROM mandates WHERE revoked_at IS NULL`)
				got := a.call(t, r.ID, o.method, strings.ReplaceAll(o.path, "{root}", a.root(t)), o.body)
				if r.Role.AtLeast(o.min) {
					require.Equal(t, o.ok, got.status, got.raw)
					return
				}
				kerneltest.RequireBelowRole(t, kerneltest.Reply{Status: got.status, Raw: got.raw, Body: got.body}, r, o.min)
				require.Equal(t, before+1, a.count(t, `SELECT count(*) FROM mandates WHERE revoked_at IS NULL`),
					"a refusal issues, revokes and replaces nothing")
			})
		}
	}
}

func TestListMandates(t *testing.T) {
	a := newMandateAdmin(t)
	task, delegated := a.delegate(t, "Ship it")
	got := a.call(t, "vic", "GET", "/mandates", "")
	require.Equal(t, 200, got.status, got.raw)
	ms := got.body["mandates"].([]any)
	require.Len(t, ms, 3, "both roots and the delegated mandate; never acme's")
	byID := map[string]map[string]any{}
	for i, m := range ms {
		mm := m.(map[string]any)
		byID[mm["id"].(string)] = mm
		require.NotEqual(t, "rocket-bot", mm["holder"])
		if i > 0 {
			require.LessOrEqual(t, ms[i-1].(map[string]any)["depth"], mm["depth"], "ordered by depth")
		}
	}
	root := byID[a.roots["code-web"]]
	require.Equal(t, map[string]any{"tasks": 1.0}, root["usage"], "posting used one task")
	require.Equal(t, map[string]any{"tasks": 50.0}, root["limits"])
	require.Equal(t, "pact", root["format"])
	require.Equal(t, "human", root["issuer_kind"])
	require.Equal(t, "ana", root["issuer"])
	for _, k := range []string{"exported_as", "external_id", "issuer_principal", "task", "revoked_at", "parent_id"} {
		v, ok := root[k]
		require.True(t, ok, k)
		require.Nil(t, v, k)
	}
	d := byID[delegated]
	require.Equal(t, map[string]any{"id": task, "title": "Ship it", "status": "submitted"}, d["task"])
	require.Equal(t, 1.0, d["depth"])
	require.Equal(t, a.roots["code-web"], d["parent_id"])
	require.Equal(t, "gemini-web", d["holder"])
	require.Equal(t, false, d["revocation_published"])

	// A credential id minted for the delegated mandate and put on a
	// revocation list makes revocation_published true, and only for it.
	_, err := a.d.ExecContext(context.Background(), `INSERT INTO credential_links (format, external_id, mandate_id) VALUES ('tenuo', 'w-1', ?);
		INSERT INTO credential_revocations (external_id, format, expires_at) VALUES ('w-1', 'tenuo', now() + interval '1 day')`, delegated)
	require.NoError(t, err)
	for _, m := range a.call(t, "vic", "GET", "/mandates", "").body["mandates"].([]any) {
		mm := m.(map[string]any)
		require.Equal(t, mm["id"] == delegated, mm["revocation_published"], mm["id"])
	}

	require.Equal(t, 200, a.call(t, "ana", "POST", "/mandates/"+a.roots["gemini-web"]+"/revoke", "").status)
	require.Len(t, a.call(t, "vic", "GET", "/mandates", "").body["mandates"], 2, "revoked mandates are not live")
	all := a.call(t, "vic", "GET", "/mandates?all=1", "").body["mandates"].([]any)
	require.Len(t, all, 3)
	for _, m := range all {
		if m.(map[string]any)["id"] == a.roots["gemini-web"] {
			require.NotNil(t, m.(map[string]any)["revoked_at"])
		}
	}
}

func TestIssueMandate(t *testing.T) {
	a := newMandateAdmin(t)
	got := a.call(t, "val", "POST", "/mandates", `{"holder": "gemini-web", "scope": ["task.work@project:web"],
		"limits": {"turns": 100}, "delegations": 0, "days": 2}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	id := got.body["mandate_id"].(string)
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND holder = 'gemini-web' AND issuer = 'val'
		AND delegations_left = 0 AND limits = '{"turns": 100}' AND expires_at < now() + interval '3 days'`, id))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.mandate.issue' AND outcome = 'ok'`))
	got = a.call(t, "val", "POST", "/mandates", `{"holder": "gemini-web", "scope": ["task.work@project:web"]}`)
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND delegations_left = 1
		AND expires_at > now() + interval '29 days'`, got.body["mandate_id"]), "delegations=1, days=30 by default")
}

func TestImpactChangesNothingAndRevokeStopsWhatItSaid(t *testing.T) {
	a := newMandateAdmin(t)
	first, delegated := a.delegate(t, "First")
	second := a.tool(t, "code-web", "pact_post", map[string]any{"project_id": "web", "title": "Second",
		"mandate_id": a.roots["code-web"]})["task_id"].(string)
	done, _ := a.delegate(t, "Done already")
	_, err := a.d.ExecContext(context.Background(), `UPDATE tasks SET status = 'completed' WHERE id = ?`, done)
	require.NoError(t, err)

	require.Equal(t, 200, a.call(t, "vic", "GET", "/mandates", "").status, "vic's first sign-in binds (and logs) her account")
	before := a.state(t)
	got := a.call(t, "vic", "GET", "/mandates/"+a.roots["code-web"]+"/impact", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, before, a.state(t), "a dry run changes nothing, not even the log")

	require.Equal(t, a.roots["code-web"], got.body["mandate_id"])
	require.Equal(t, []any{"code-web", "gemini-web"}, got.body["agents"])
	descendants := got.body["descendants"].([]any)
	require.Len(t, descendants, 2, "both delegated mandates are still live")
	require.Contains(t, descendants, map[string]any{"id": delegated, "holder": "gemini-web", "depth": 1.0})
	tasks := got.body["tasks"].([]any)
	require.Equal(t, []any{
		map[string]any{"id": first, "title": "First", "status": "submitted", "assignee": nil},
		map[string]any{"id": second, "title": "Second", "status": "submitted", "assignee": nil},
	}, tasks, "open tasks only, oldest first")

	leaf := a.call(t, "vic", "GET", "/mandates/"+delegated+"/impact", "")
	require.Equal(t, 200, leaf.status)
	require.Equal(t, []any{"gemini-web"}, leaf.body["agents"])
	require.Equal(t, []any{}, leaf.body["descendants"])
	require.Len(t, leaf.body["tasks"], 1)

	got = a.call(t, "val", "POST", "/mandates/"+a.roots["code-web"]+"/revoke", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, float64(len(descendants)), got.body["descendant_mandates"])
	require.Equal(t, float64(len(tasks)), got.body["tasks_stopped"], "revoking stops what the impact named")
	require.Equal(t, 2, a.count(t, `SELECT count(*) FROM tasks WHERE id IN (?, ?) AND status = 'canceled'`, first, second))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed'`, done))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.mandate.revoke' AND outcome = 'ok'`))

	after := a.call(t, "vic", "GET", "/mandates/"+a.roots["code-web"]+"/impact", "")
	require.Equal(t, 200, after.status)
	require.Equal(t, map[string]any{"mandate_id": a.roots["code-web"], "descendants": []any{}, "tasks": []any{},
		"agents": []any{"code-web"}}, after.body, "nothing left to stop")
}

// ADMIN-006: a task posted under a delegated mandate, linked to the root only
// through it, is in the root's impact, and revoking the root stops it.
func TestImpactNamesTasksPostedUnderADescendant(t *testing.T) {
	a := newMandateAdmin(t)
	out := a.tool(t, "code-web", "pact_post", map[string]any{"project_id": "web", "title": "Parent",
		"mandate_id": a.roots["code-web"], "delegate_to": "gemini-web",
		"child_scope": []string{"task.post@project:web", "task.read@project:web"}})
	parent, delegated := out["task_id"].(string), out["delegated_mandate_id"].(string)
	sub := a.tool(t, "gemini-web", "pact_post", map[string]any{"project_id": "web", "title": "Sub",
		"mandate_id": delegated})["task_id"].(string)

	got := a.call(t, "vic", "GET", "/mandates/"+a.roots["code-web"]+"/impact", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, []any{
		map[string]any{"id": parent, "title": "Parent", "status": "submitted", "assignee": nil},
		map[string]any{"id": sub, "title": "Sub", "status": "submitted", "assignee": nil},
	}, got.body["tasks"], "a task reached only through a descendant is named")

	got = a.call(t, "val", "POST", "/mandates/"+a.roots["code-web"]+"/revoke", "")
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, 2.0, got.body["tasks_stopped"], "revoking stops what the impact named")
	require.Equal(t, 2, a.count(t, `SELECT count(*) FROM tasks WHERE id IN (?, ?) AND status = 'canceled'`, parent, sub))
}

func TestReplaceMandate(t *testing.T) {
	a := newMandateAdmin(t)
	old := a.roots["code-web"]
	task, _ := a.delegate(t, "Keeps running")

	got := a.call(t, "val", "POST", "/mandates/"+old+"/replace", `{"scope": ["task.read@project:web", "task.post@project:web", "task.work@project:web"], "days": 10}`)
	require.Equal(t, 200, got.status, got.raw)
	kept := got.body["mandate_id"].(string)
	require.Equal(t, map[string]any{"mandate_id": kept, "replaced": old, "revoked": false, "descendant_mandates": 0.0,
		"tasks_stopped": 0.0}, got.body)
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM agents WHERE id = 'code-web' AND root_mandate_id = ?`, kept),
		"the new root is the agent's root")
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND limits = '{"tasks": 50}'
		AND delegations_left = 3 AND issuer = 'val' AND parent_id IS NULL`, kept), "limits and delegations default to the old root's")
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NULL`, old), "without revoke the old root lives")
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted'`, task))

	got = a.call(t, "ana", "POST", "/mandates/"+old+"/replace", `{"scope": ["task.read@project:web"], "limits": {"tasks": 3},
		"delegations": 0, "revoke": true}`)
	require.Equal(t, 200, got.status, got.raw)
	fresh := got.body["mandate_id"].(string)
	require.Equal(t, map[string]any{"mandate_id": fresh, "replaced": old, "revoked": true, "descendant_mandates": 1.0,
		"tasks_stopped": 1.0}, got.body)
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NOT NULL`, old))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled'`, task))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM agents WHERE id = 'code-web' AND root_mandate_id = ?`, fresh))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND limits = '{"tasks": 3}' AND delegations_left = 0`, fresh))
	require.Equal(t, 2, a.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.mandate.replace' AND outcome = 'ok'`))

	// Only a live root can be replaced.
	a.roots["code-web"] = kept
	_, delegated := a.delegate(t, "Under the kept root")
	for name, id := range map[string]string{"Revoked": old, "NotARoot": delegated} {
		got = a.call(t, "ana", "POST", "/mandates/"+id+"/replace", `{"scope": ["task.read@project:web"]}`)
		require.Equal(t, http.StatusBadRequest, got.status, name)
		require.Equal(t, map[string]any{"error": "invalid_request", "message": "mandate " + id + " is not a live root mandate"}, got.body)
	}
	require.Equal(t, 3, a.count(t, `SELECT count(*) FROM mandates WHERE holder = 'code-web' AND parent_id IS NULL`),
		"refused replacements issue nothing")
}

// TestMandateBadInput sends what a careless client might: each answer is a
// clear 4xx with its code, and nothing is written.
func TestMandateBadInput(t *testing.T) {
	a := newMandateAdmin(t)
	root := a.roots["code-web"]
	before := a.rows(t)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"MalformedJSON", "POST", "/mandates", `{"holder": `, 400, "invalid_request"},
		{"UnknownField", "POST", "/mandates", `{"holder": "code-web", "scope": ["task.read@project:web"], "root": true}`, 422, "invalid_request"},
		{"WrongType", "POST", "/mandates", `{"holder": "code-web", "scope": "task.read@project:web"}`, 422, "invalid_request"},
		{"NoScope", "POST", "/mandates", `{"holder": "code-web", "scope": []}`, 400, "invalid_request"},
		{"BadScope", "POST", "/mandates", `{"holder": "code-web", "scope": ["not a scope"]}`, 400, "invalid_request"},
		{"OtherProject", "POST", "/mandates", `{"holder": "code-web", "scope": ["task.read@project:api"]}`, 400, "project_mismatch"},
		{"NegativeLimit", "POST", "/mandates", `{"holder": "code-web", "scope": ["task.read@project:web"], "limits": {"tasks": -1}}`, 400, "invalid_request"},
		{"TooManyDelegations", "POST", "/mandates", `{"holder": "code-web", "scope": ["task.read@project:web"], "delegations": 9}`, 422, "invalid_request"},
		{"LongTerm", "POST", "/mandates", `{"holder": "code-web", "scope": ["task.read@project:web"], "days": 999}`, 400, "invalid_request"},
		{"UnknownHolder", "POST", "/mandates", `{"holder": "ghost", "scope": ["task.read@project:web"]}`, 404, "not_found"},
		{"ForeignHolder", "POST", "/mandates", `{"holder": "rocket-bot", "scope": ["task.read@project:rocket"]}`, 404, "not_found"},
		{"IDShape", "POST", "/mandates/not-a-uuid/revoke", "", 422, "invalid_request"},
		{"IDShapeImpact", "GET", "/mandates/" + strings.ToUpper(root) + "x/impact", "", 422, "invalid_request"},
		{"ReplaceNoScope", "POST", "/mandates/" + root + "/replace", `{"scope": []}`, 400, "invalid_request"},
		{"ReplaceOtherProject", "POST", "/mandates/" + root + "/replace", `{"scope": ["task.read@project:api"], "revoke": true}`, 400, "project_mismatch"},
		{"ReplaceUnknownField", "POST", "/mandates/" + root + "/replace", `{"scope": ["task.read@project:web"], "revoked": true}`, 422, "invalid_request"},
		{"ReplaceNoBody", "POST", "/mandates/" + root + "/replace", "", 400, "invalid_request"},
		{"Oversize", "POST", "/mandates", `{"holder": "code-web", "scope": ["` + strings.Repeat("x", 70<<10) + `"]}`, 413, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := a.call(t, "ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, tc.code, got.body["error"], got.raw)
		})
	}
	require.Equal(t, 0, a.count(t, `SELECT count(*) FROM entries WHERE action LIKE 'admin.mandate.%' AND outcome = 'ok'`))
	require.Equal(t, before, a.rows(t), "refusals change nothing but their log entries")
}

// TestAnotherOrganizationsMandatesAnswerLikeMissingOnes checks every mandate
// route with acme's root mandate and with an id nobody has.
func TestAnotherOrganizationsMandatesAnswerLikeMissingOnes(t *testing.T) {
	a := newMandateAdmin(t)
	foreign, missing := a.roots["rocket-bot"], "00000000-0000-4000-8000-000000000000"
	before := a.rows(t)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/mandates/%s/impact", ""},
		{"POST", "/mandates/%s/revoke", ""},
		{"POST", "/mandates/%s/replace", `{"scope": ["task.read@project:web"], "revoke": true}`},
	} {
		other := a.call(t, "ana", tc.method, fmt.Sprintf(tc.path, foreign), tc.body)
		none := a.call(t, "ana", tc.method, fmt.Sprintf(tc.path, missing), tc.body)
		require.Equal(t, http.StatusNotFound, other.status, other.raw)
		require.Equal(t, none.status, other.status)
		require.Equal(t, strings.ReplaceAll(none.raw, missing, "?"), strings.ReplaceAll(other.raw, foreign, "?"))
	}
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NULL`, foreign))
	require.Equal(t, 1, a.count(t, `SELECT count(*) FROM agents WHERE id = 'rocket-bot' AND root_mandate_id = ?`, foreign))
	require.Equal(t, before, a.rows(t))
}

func ptr[T any](v T) *T { return &v }
