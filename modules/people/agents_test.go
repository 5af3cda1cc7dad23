package people_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/people"
)

// withAgents adds to newBoard's board the agent reg-web (registered by
// hand, code, web) and hired-web (hired from role code by val), and in
// acme the role rocketeer and the agent rocket-bot hired from it by bo
// (with the setup code hiring a code agent makes).
func withAgents(t *testing.T, b *board) {
	t.Helper()
	ctx := context.Background()
	b.Agent("ana", kerneltest.AgentInput{ID: "reg-web", Client: "code", Projects: []string{"web"}})
	_, err := b.mod.Service().Hire(ctx, "val", people.HireInput{Role: "code", Project: "web", ID: "hired-web"})
	require.NoError(t, err)
	_, err = b.mod.Service().SaveRole(ctx, "bo", people.RoleInput{ID: "rocketeer", Name: "Rocketeer", Client: "code", Actions: []string{"task.read"}})
	require.NoError(t, err)
	_, err = b.mod.Service().Hire(ctx, "bo", people.HireInput{Role: "rocketeer", Project: "rocket", ID: "rocket-bot"})
	require.NoError(t, err)
}

// connectCode posts body to POST /connect on the board (no token).
func (b *board) connectCode(t *testing.T, body string) kerneltest.Reply {
	t.Helper()
	return b.postConnect(t, strings.NewReader(body))
}

// postConnect posts body to POST /connect on the board (no token); a body
// whose length net/http cannot tell beforehand is sent chunked, with no
// Content-Length.
func (b *board) postConnect(t *testing.T, body io.Reader) kerneltest.Reply {
	t.Helper()
	resp, err := http.Post(b.URL+"/connect", "application/json", body)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := kerneltest.Reply{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw)}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

func TestAgentOperationsForEachRole(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	roles := kerneltest.Staff()
	ops := []struct {
		method, path string
		body         func(as string) string
		min          identity.Role
		ok           int
	}{
		{"GET", "/agents", nil, identity.Viewer, 200},
		{"POST", "/agents", func(as string) string { return `{"id": "a-` + as + `", "projects": ["web"]}` }, identity.Approver, 201},
		{"POST", "/agents/hire", func(as string) string { return `{"role": "code", "project": "web", "id": "h-` + as + `"}` }, identity.Approver, 201},
		{"GET", "/agents/hired-web/connection", nil, identity.Viewer, 200},
		{"POST", "/agents/hired-web/renew", nil, identity.Approver, 200},
		{"POST", "/agents/hired-web/role", func(string) string { return `{"role_id": "code"}` }, identity.Approver, 200},
		{"PATCH", "/agents/hired-web", func(as string) string { return `{"owner": "ana"}` }, identity.Approver, 200},
		{"POST", "/agents/hired-web/setup-code", nil, identity.Approver, 200},
		{"POST", "/agents/reg-web/status", func(string) string { return `{"status": "active"}` }, identity.Approver, 200},
		{"PUT", "/agents/reg-web/preferences", func(as string) string { return `{"preferences": {"by": "` + as + `"}}` }, identity.Approver, 200},
		{"POST", "/agents/reg-web/tokens", func(string) string { return `{"days": 1}` }, identity.Approver, 200},
		{"DELETE", "/agents/reg-web/tokens", nil, identity.Approver, 200},
		{"GET", "/roles", nil, identity.Viewer, 200},
		{"PUT", "/roles/r-x", func(as string) string {
			return `{"name": "R ` + as + `", "client": "code", "actions": ["task.read"]}`
		}, identity.Approver, 200},
		{"POST", "/roles/design/archive", nil, identity.Approver, 200},
	}
	for _, o := range ops {
		for _, r := range roles {
			t.Run(o.method+o.path+"/"+string(r.Role), func(t *testing.T) {
				body := ""
				if o.body != nil {
					body = o.body(r.ID)
				}
				got := b.Admin(r.ID, o.method, o.path, body)
				require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
				if r.Role.AtLeast(o.min) {
					require.Equal(t, o.ok, got.Status, got.Raw)
					return
				}
				kerneltest.RequireBelowRole(t, got, r, o.min)
			})
		}
	}
	// Banning needs an owner even though the operation admits approvers.
	got := b.Admin("val", "POST", "/agents/reg-web/status", `{"status": "banned"}`)
	require.Equal(t, http.StatusForbidden, got.Status, got.Raw)
	require.Equal(t, "val is approver; this needs owner", got.Body["message"])
	got = b.Admin("ana", "POST", "/agents/reg-web/status", `{"status": "banned"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "banned", got.Body["status"])
}

func TestHireGivesASetupCodeRedeemedOnce(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "code", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, "code-web", got.Body["agent_id"], "id defaults to <role>-<project>")
	require.Equal(t, "code", got.Body["role"])
	require.NotContains(t, got.Raw, "pact_", "a hire never shows a token")
	c := got.Body["connect"].(map[string]any)
	require.Equal(t, "setup_code", c["kind"])
	code := c["code"].(string)
	require.Regexp(t, `^pcs_[A-Za-z0-9_-]{24}$`, code)
	require.Equal(t, "pact-connect "+b.Config.BoardURL+" "+code, c["command"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM setup_codes WHERE code_hash = ? AND expires_at BETWEEN now() + interval '14 minutes' AND now() + interval '15 minutes'`,
		identity.HashToken(code)), "only the hash is kept, for 15 minutes")
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM agent_tokens WHERE agent_id = 'code-web'`))
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM mandates WHERE holder = 'code-web' AND parent_id IS NULL
		AND delegations_left = 3 AND scope = '{task.read@project:web,task.post@project:web,task.work@project:web,context.write@project:web,pact.read@project:web,pact.write@project:web}'`),
		"the role's scope and delegations")
	conn := b.Admin("vic", "GET", "/agents/code-web/connection", "")
	require.Equal(t, 200, conn.Status, conn.Raw)
	require.Equal(t, "waiting_for_code", conn.Body["state"])

	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
	require.Equal(t, "code-web", got.Body["agent_id"])
	require.Equal(t, "web", got.Body["project"])
	require.Equal(t, "code", got.Body["role"])
	require.Equal(t, b.Config.BoardURL+"/mcp/a/code-web", got.Body["mcp_url"])
	token := got.Body["token"].(string)
	ok, err := b.Identity.AuthenticateAgent(context.Background(), b.DB, "code-web", token)
	require.NoError(t, err)
	require.True(t, ok, "the token is a live token of that agent")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_tokens WHERE agent_id = 'code-web'
		AND expires_at BETWEEN now() + interval '89 days' AND now() + interval '91 days'`), "the role's token term")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent.connect' AND actor = 'human:val' AND outcome = 'ok'`))
	require.Equal(t, "code_redeemed", b.Admin("vic", "GET", "/agents/code-web/connection", "").Body["state"])

	again := b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusForbidden, again.Status, again.Raw)
	require.Equal(t, map[string]any{"error": "forbidden", "message": people.RedeemRefused}, again.Body, "single use")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_tokens WHERE agent_id = 'code-web'`))
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.agent.connect' AND e.actor = 'agent:code-web' AND e.outcome = 'forbidden'
		AND p.content->>'reason' = 'used'`), "a used code presented again is logged in its organization")

	b.Exec(`INSERT INTO agent_presence (agent_id, last_seen) VALUES ('code-web', now())`)
	require.Equal(t, "connected", b.Admin("vic", "GET", "/agents/code-web/connection", "").Body["state"])

	// A new code for a new machine; it expires unused.
	got = b.Admin("val", "POST", "/agents/code-web/setup-code", "")
	require.Equal(t, 200, got.Status, got.Raw)
	code2 := got.Body["code"].(string)
	b.Exec(`UPDATE setup_codes SET expires_at = now() - interval '1 second' WHERE code_hash = ?`, identity.HashToken(code2))
	require.Equal(t, http.StatusForbidden, b.connectCode(t, `{"code": "`+code2+`"}`).Status, "expired")
	require.Equal(t, "expired", b.Admin("vic", "GET", "/agents/code-web/connection", "").Body["state"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.agent.connect' AND e.outcome = 'forbidden' AND p.content->>'reason' = 'expired'`))
	refusals := b.Count(`SELECT count(*) FROM entries WHERE outcome <> 'ok'`)
	require.Equal(t, http.StatusForbidden, b.connectCode(t, `{"code": "pcs_unknown"}`).Status)
	require.Equal(t, refusals, b.Count(`SELECT count(*) FROM entries WHERE outcome <> 'ok'`),
		"an unknown code names no organization: nothing is logged")
}

func TestHireFromOAuthAndRunnerRoles(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "chat", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, map[string]any{"kind": "oauth", "url": b.Config.BoardURL + "/mcp/a/chat-web"}, got.Body["connect"])
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM setup_codes`))
	got = b.Admin("val", "POST", "/agents/chat-web/setup-code", "")
	require.Equal(t, 200, got.Status)
	require.Equal(t, "oauth", got.Body["kind"])

	got = b.Admin("val", "POST", "/agents/hire", `{"role": "secretary", "project": "web", "owner": "vic", "limits": {"runs": 5}}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agents WHERE id = 'secretary-web' AND owner = 'vic' AND role_id = 'secretary'`))
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM mandates WHERE holder = 'secretary-web' AND limits = '{"runs": 5}'`), "limits override the role's")
	red := b.connectCode(t, `{"code": "`+got.Body["connect"].(map[string]any)["code"].(string)+`"}`)
	require.Equal(t, 200, red.Status, red.Raw)
	settings := red.Body["settings"].(map[string]any)
	require.Equal(t, "runner-web,code-web", settings["PACT_RUNNER_WORKERS"], "{project} filled in")
	require.Contains(t, settings["PACT_RUNNER_SCHEDULE"], `project_id=\"web\"`)
}

// A remote A2A agent connects to nothing (docs/a2a.md, "Remote agents"):
// hiring one, or asking for its connection again, mints no setup code and
// says where its card is named.
func TestHireARemoteA2AAgentNamesWhereItsCardGoes(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "PUT", "/roles/painter", `{"name": "Painter", "client": "a2a-remote", "actions": ["task.read", "task.work"]}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	got = b.Admin("val", "POST", "/agents/hire", `{"role": "painter", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	want := map[string]any{"kind": "remote_card", "url": b.Config.BoardURL + "/admin/api/agents/painter-web/a2a-remote"}
	require.Equal(t, want, got.Body["connect"])
	got = b.Admin("val", "POST", "/agents/painter-web/setup-code", "")
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	require.Equal(t, want, got.Body)
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM setup_codes`), "no setup code is minted for it")
}

// TestAgentListHasTheDocumentedFields: GET /agents answers each agent with
// the fields docs/specs/behavior.md §10.6 lists, under those names (it
// named the live-key count live_keys once: audit item 4).
func TestAgentListHasTheDocumentedFields(t *testing.T) {
	b := newBoard(t)
	require.Equal(t, 201, b.Admin("val", "POST", "/agents", `{"id": "reg-web", "projects": ["web"]}`).Status)
	list := b.Admin("vic", "GET", "/agents", "")
	require.Equal(t, 200, list.Status, list.Raw)
	a := list.Body["agents"].([]any)[0].(map[string]any)
	for _, field := range []string{"id", "owner", "client", "status", "last_seen", "created_at", "root_mandate_id",
		"preferences", "role_id", "replaced_by", "projects", "live_tokens", "live_mandates", "keys"} {
		require.Contains(t, a, field)
	}
	require.Equal(t, 0.0, a["keys"])
}

func TestHireReplacesBansTheOldAgent(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "code", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	oldCode := got.Body["connect"].(map[string]any)["code"].(string)
	require.Equal(t, 200, b.Admin("val", "POST", "/agents/code-web/tokens", `{}`).Status)

	got = b.Admin("val", "POST", "/agents/hire", `{"role": "code", "project": "web", "id": "code-web-2", "replaces": "code-web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	list := b.Admin("vic", "GET", "/agents", "")
	require.Equal(t, 200, list.Status)
	byID := map[string]map[string]any{}
	for _, a := range list.Body["agents"].([]any) {
		byID[a.(map[string]any)["id"].(string)] = a.(map[string]any)
	}
	require.Equal(t, "banned", byID["code-web"]["status"])
	require.Equal(t, "code-web-2", byID["code-web"]["replaced_by"])
	require.Equal(t, 0.0, byID["code-web"]["live_tokens"], "its tokens are revoked")
	require.Equal(t, 0.0, byID["code-web"]["live_mandates"], "and its mandates")
	require.Equal(t, "active", byID["code-web-2"]["status"])
	require.Equal(t, "code", byID["code-web-2"]["role_id"])
	require.Equal(t, 1.0, byID["code-web-2"]["live_mandates"])
	require.Equal(t, false, byID["code-web-2"]["online"])
	require.Equal(t, http.StatusForbidden, b.connectCode(t, `{"code": "`+oldCode+`"}`).Status, "a banned agent's code is refused")
	require.Equal(t, http.StatusNotFound, b.Admin("val", "POST", "/agents/code-web/setup-code", "").Status)

	got = b.Admin("val", "POST", "/agents/hire", `{"role": "code", "project": "web", "id": "code-web-3", "replaces": "nobody"}`)
	require.Equal(t, http.StatusNotFound, got.Status, got.Raw)
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM agents WHERE id = 'code-web-3'`), "nothing half-written")
}

func TestRolesRenewAndRoleChange(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	withAgents(t, b)
	got := b.Admin("vic", "GET", "/roles", "")
	require.Equal(t, 200, got.Status, got.Raw)
	var ids []string
	for _, r := range got.Body["roles"].([]any) {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	require.Equal(t, []string{"chat", "code", "gemini", "runner", "worker", "secretary", "design", "cowork"}, ids)

	got = b.Admin("val", "PUT", "/roles/reviewer", `{"name": "Reviewer", "client": "code", "actions": ["task.read", "task.work"], "limits": {"runs": 3}}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, 1.0, got.Body["delegations"])
	require.Equal(t, 90.0, got.Body["token_days"])

	// Renew: a fresh root from the role; the old one keeps running.
	var before string
	require.NoError(t, b.DB.NewRaw(`SELECT root_mandate_id::text FROM agents WHERE id = 'hired-web'`).Scan(ctx, &before))
	got = b.Admin("val", "POST", "/agents/hired-web/renew", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.NotEqual(t, before, got.Body["mandate_id"])
	require.Equal(t, 2, b.Count(`SELECT count(*) FROM mandates WHERE holder = 'hired-web' AND revoked_at IS NULL`))
	got = b.Admin("val", "POST", "/agents/reg-web/renew", "")
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Contains(t, got.Body["message"], "not hired from a role")

	// A role change reissues from the new role and revokes every old root.
	got = b.Admin("val", "POST", "/agents/hired-web/role", `{"role_id": "reviewer"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Len(t, got.Body["revoked_mandates"], 2)
	require.Equal(t, "reviewer", got.Body["agent"].(map[string]any)["role_id"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM mandates WHERE holder = 'hired-web' AND revoked_at IS NULL
		AND scope = '{task.read@project:web,task.work@project:web}' AND limits = '{"runs": 3}'`))
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent.role' AND outcome = 'ok'`))

	for _, tc := range []struct{ body, says string }{
		{`{"role_id": "chat"}`, "role chat is for chat agents"},
		{`{"role_id": "rocketeer"}`, "role rocketeer does not exist"},
	} {
		got = b.Admin("val", "POST", "/agents/hired-web/role", tc.body)
		require.Contains(t, []int{400, 404}, got.Status, got.Raw)
		require.Contains(t, got.Body["message"], tc.says)
	}
	got = b.Admin("val", "PATCH", "/agents/hired-web", `{"owner": "vic"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Empty(t, got.Body["revoked_mandates"], "a new owner changes nothing else")
	require.Equal(t, "vic", got.Body["agent"].(map[string]any)["owner"])
	got = b.Admin("val", "PATCH", "/agents/hired-web", `{"projects": ["web", "rocket"]}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)

	// Archived roles hire no one; their agents keep working.
	got = b.Admin("val", "POST", "/roles/reviewer/archive", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.NotNil(t, got.Body["archived_at"])
	got = b.Admin("val", "POST", "/agents/hire", `{"role": "reviewer", "project": "web"}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Contains(t, got.Body["message"], "archived")
	require.Len(t, b.Admin("vic", "GET", "/roles", "").Body["roles"], 8)
	require.Len(t, b.Admin("vic", "GET", "/roles?archived=true", "").Body["roles"], 9)
	require.Equal(t, 200, b.Admin("val", "PUT", "/roles/reviewer", `{"name": "Reviewer", "client": "code", "actions": ["task.read"]}`).Status)
	require.Len(t, b.Admin("vic", "GET", "/roles", "").Body["roles"], 9, "saving un-archives")

	got = b.Admin("val", "PUT", "/roles/db-runner", `{"name": "DB", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "postgres://u:hunter2@db/x", "PACT_RUNNER_MAX_TURNS": "5"}}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM payloads WHERE content::text LIKE '%hunter2%'`), "the log never holds the database URL")
}

func TestAgentBadInput(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"HireUnknownField", "POST", "/agents/hire", `{"role": "code", "project": "web", "token": "x"}`, 422},
		{"HireNoProject", "POST", "/agents/hire", `{"role": "code", "project": ""}`, 400},
		{"HireUnknownRole", "POST", "/agents/hire", `{"role": "pilot", "project": "web"}`, 404},
		{"HireBadID", "POST", "/agents/hire", `{"role": "code", "project": "web", "id": "Bad ID"}`, 422},
		{"HireTaken", "POST", "/agents/hire", `{"role": "code", "project": "web", "id": "reg-web"}`, 409},
		{"HireUnknownOwner", "POST", "/agents/hire", `{"role": "code", "project": "web", "id": "x", "owner": "bo"}`, 404},
		{"RegisterNoProjects", "POST", "/agents", `{"id": "x", "projects": []}`, 400},
		{"AgentIDShape", "POST", "/agents/Not%20OK/renew", ``, 422},
		{"PreferencesNotObject", "PUT", "/agents/reg-web/preferences", `{"preferences": [1]}`, 422},
		{"BadStatus", "POST", "/agents/reg-web/status", `{"status": "gone"}`, 422},
		{"NothingToChange", "PATCH", "/agents/hired-web", `{}`, 400},
		{"RoleScopedAction", "PUT", "/roles/x", `{"name": "X", "client": "code", "actions": ["task.work@project:web"]}`, 400},
		{"RoleNoActions", "PUT", "/roles/x", `{"name": "X", "client": "code", "actions": []}`, 400},
		{"RoleBlankName", "PUT", "/roles/x", `{"name": "  ", "client": "code", "actions": ["task.read"]}`, 400},
		{"RoleBadSetting", "PUT", "/roles/x", `{"name": "X", "client": "runner", "actions": ["task.read"], "settings": {"PATH": "/"}}`, 400},
		{"RoleOutOfRange", "PUT", "/roles/x", `{"name": "X", "client": "code", "actions": ["task.read"], "mandate_days": 400}`, 400},
		{"RoleDelegations", "PUT", "/roles/x", `{"name": "X", "client": "code", "actions": ["task.read"], "delegations": 9}`, 422},
		{"RoleIDShape", "PUT", "/roles/UPPER", `{"name": "X", "client": "code", "actions": ["task.read"]}`, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.Admin("ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.NotEmpty(t, got.Body["error"], got.Raw)
			if tc.status == 400 || tc.status == 422 {
				require.Contains(t, []any{"invalid_request", "project_required"}, got.Body["error"], got.Raw)
			}
		})
	}
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM agents WHERE id = 'x'`))
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM agent_roles WHERE id = 'x'`))

	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"Oversize", `{"code": "pcs_` + strings.Repeat("a", 5000) + `"}`, 413, `the body is at most 4096 bytes: send {"code": "pcs_..."}`},
		{"NotACode", `{"code": "pact_abc"}`, 400, `send {"code": "pcs_..."}`},
		{"Malformed", `{"code": `, 400, `send {"code": "pcs_..."}`},
		{"NUL", `{"code": "pcs_a\u0000b"}`, 400, `code holds a NUL character (\u0000), which the board cannot store: remove it`},
	} {
		t.Run("Connect"+tc.name, func(t *testing.T) {
			got := b.connectCode(t, tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, map[string]any{"error": "invalid_request", "message": tc.says}, got.Body)
		})
	}
}

func TestAnotherOrganizationsAgentsAndRolesAnswerLikeMissingOnes(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	acmeCodes := `SELECT count(*) FROM setup_codes s JOIN agents a ON a.id = s.agent_id WHERE a.org_id = 'acme'`
	require.Equal(t, 1, b.Count(acmeCodes), "the one hiring rocket-bot made")
	for _, tc := range []struct{ method, path, foreign, missing, body string }{
		{"GET", "/agents/%s/connection", "rocket-bot", "no-bot", ""},
		{"POST", "/agents/%s/renew", "rocket-bot", "no-bot", ""},
		{"POST", "/agents/%s/setup-code", "rocket-bot", "no-bot", ""},
		{"POST", "/agents/%s/tokens", "rocket-bot", "no-bot", `{}`},
		{"PATCH", "/agents/%s", "rocket-bot", "no-bot", `{"owner": "ana"}`},
		{"POST", "/roles/%s/archive", "rocketeer", "no-role", ""},
		{"POST", "/agents/hired-web/role%.0s", "rocketeer", "no-role", ""},
	} {
		body := func(id string) string {
			if strings.HasSuffix(tc.path, "/role%.0s") {
				return `{"role_id": "` + id + `"}`
			}
			return tc.body
		}
		other := b.Admin("ana", tc.method, fmt.Sprintf(tc.path, tc.foreign), body(tc.foreign))
		missing := b.Admin("ana", tc.method, fmt.Sprintf(tc.path, tc.missing), body(tc.missing))
		require.Equal(t, http.StatusNotFound, other.Status, other.Raw)
		require.Equal(t, strings.ReplaceAll(missing.Raw, tc.missing, "?"), strings.ReplaceAll(other.Raw, tc.foreign, "?"))
	}
	got := b.Admin("ana", "POST", "/agents/hire", `{"role": "rocketeer", "project": "web"}`)
	require.Equal(t, http.StatusNotFound, got.Status, "acme's role hires no one here")
	got = b.Admin("ana", "POST", "/agents/hire", `{"role": "code", "project": "rocket"}`)
	require.Equal(t, http.StatusNotFound, got.Status, got.Raw)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_roles WHERE org_id = 'acme' AND archived_at IS NULL`))
	require.Equal(t, 1, b.Count(acmeCodes), "ana made acme's agent no setup code")
	for _, a := range b.Admin("vic", "GET", "/agents", "").Body["agents"].([]any) {
		require.NotEqual(t, "rocket-bot", a.(map[string]any)["id"])
	}
}

// A role's DATABASE_URL carries a password: listing roles says it is set
// and never shows it, to anyone.
func TestRoleDatabaseURLIsNeverListed(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	got := b.Admin("val", "PUT", "/roles/dbrunner", `{"name": "DB runner", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "postgres://app:hunter2@db/app"}}`)
	require.Equal(t, 200, got.Status, got.Raw)
	for _, who := range []string{"vic", "val", "ana"} {
		got = b.Admin(who, "GET", "/roles", "")
		require.Equal(t, 200, got.Status, got.Raw)
		require.NotContains(t, got.Raw, "hunter2")
		require.Contains(t, got.Raw, `"DATABASE_URL":"[REDACTED]"`)
	}
}

// Moving a hired agent to other projects reissues its root over all of them
// and revokes the old one; a code agent keeps one project; a hand-registered
// agent, no projects and an unknown project are refused
// (docs/specs/behavior.md §10.2 update_agent, §13 test_editing).
func TestMovingAnAgentToProjectsReissuesItsRoot(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	b.Project("ana", "api", false)
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "chat", "project": "web", "id": "chat-web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)

	got = b.Admin("val", "PATCH", "/agents/chat-web", `{"projects": ["web", "api"]}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Len(t, got.Body["revoked_mandates"], 1)
	require.ElementsMatch(t, []any{"web", "api"}, got.Body["agent"].(map[string]any)["projects"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM mandates WHERE holder = 'chat-web' AND revoked_at IS NULL
		AND 'task.read@project:web' = ANY(scope) AND 'task.read@project:api' = ANY(scope)`), "one live root over both projects")

	for _, tc := range []struct{ agent, body, code, says string }{
		{"hired-web", `{"projects": ["web", "api"]}`, "invalid_request", "code agents work in exactly one project; got 2"},
		{"reg-web", `{"projects": ["api"]}`, "invalid_request", "agent reg-web has no role; give it one with role_id"},
		{"chat-web", `{"projects": []}`, "project_required", "an agent needs at least one project"},
		{"chat-web", `{"projects": ["web", "nowhere"]}`, "not_found", "project nowhere does not exist"},
	} {
		got = b.Admin("val", "PATCH", "/agents/"+tc.agent, tc.body)
		require.Equal(t, map[string]any{"error": tc.code, "message": tc.says}, got.Body, "%s %s", tc.agent, tc.body)
	}
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM mandates WHERE holder = 'chat-web' AND revoked_at IS NULL`), "refusals change nothing")
}

// POST /agents registers the agent with the client the body names; only a
// body naming none gets a code agent (docs/specs/behavior.md §10.6).
func TestRegisterAgentKeepsTheClientItNames(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "POST", "/agents", `{"id": "chat-web", "client": "chat", "projects": ["web"]}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	got = b.Admin("val", "POST", "/agents", `{"id": "plain-web", "projects": ["web"]}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	clients := map[string]any{}
	for _, a := range b.Admin("vic", "GET", "/agents", "").Body["agents"].([]any) {
		clients[a.(map[string]any)["id"].(string)] = a.(map[string]any)["client"]
	}
	require.Equal(t, map[string]any{"chat-web": "chat", "plain-web": "code"}, clients)
}

// PUT /agents/{id}/preferences answers with the preferences now stored and
// refuses oversize ones with invalid_request, storing nothing; DELETE
// /agents/{id}/tokens answers how many tokens it revoked. Callers act on
// these answers, so an empty 200 would be wrong.
func TestPreferencesAndTokenRevocationAnswerWhatTheyDid(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	got := b.Admin("val", "PUT", "/agents/reg-web/preferences", `{"preferences": {"language": "th", "style": {"short": true}}}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.JSONEq(t, `{"ok": true, "preferences": {"language": "th", "style": {"short": true}}}`, got.Raw)

	got = b.Admin("val", "PUT", "/agents/reg-web/preferences", `{"preferences": {"a": "`+strings.Repeat("x", people.MaxPreferences)+`"}}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
	require.Contains(t, got.Body["message"], "the limit is 4000")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agents WHERE id = 'reg-web' AND preferences = '{"language": "th", "style": {"short": true}}'::jsonb`),
		"a refusal keeps what was stored")

	require.Equal(t, 200, b.Admin("val", "POST", "/agents/reg-web/tokens", `{"days": 1}`).Status)
	got = b.Admin("val", "DELETE", "/agents/reg-web/tokens", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.JSONEq(t, `{"revoked": 2}`, got.Raw, "the token registering gave and the one issued since")
	got = b.Admin("val", "DELETE", "/agents/reg-web/tokens", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.JSONEq(t, `{"revoked": 0}`, got.Raw, "none are left")
	got = b.Admin("val", "DELETE", "/agents/no-bot/tokens", "")
	require.Equal(t, http.StatusNotFound, got.Status, got.Raw)
	require.Equal(t, "not_found", got.Body["error"], got.Raw)
}

// Runners never work on production projects: moving a runner to one is
// refused with project_mismatch and changes nothing, while any other
// client may move there (docs/specs/behavior.md §10.2 update_agent).
func TestMovingARunnerToAProductionProjectIsRefused(t *testing.T) {
	b := newBoard(t)
	b.Project("ana", "live", true)
	for _, role := range []string{"runner", "chat"} {
		got := b.Admin("val", "POST", "/agents/hire", `{"role": "`+role+`", "project": "web"}`)
		require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	}

	got := b.Admin("val", "PATCH", "/agents/runner-web", `{"projects": ["live"]}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Equal(t, map[string]any{"error": "project_mismatch", "message": "runners never work on production projects"}, got.Body)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM mandates WHERE holder = 'runner-web' AND revoked_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM unnest(scope) s WHERE s LIKE '%@project:live')`), "the runner keeps its root over web only")

	got = b.Admin("val", "PATCH", "/agents/chat-web", `{"projects": ["web", "live"]}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.ElementsMatch(t, []any{"web", "live"}, got.Body["agent"].(map[string]any)["projects"])
}

// A hire's root mandate lasts the days the hire names, or else its role's
// mandate_days: with a role of 60 days, a hire naming none gets 60 days (not
// the 30 of a registration) and one naming 7 gets 7.
func TestAHiresMandateLastsItsDaysOrElseItsRoles(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "PUT", "/roles/long", `{"name": "Long", "client": "code", "actions": ["task.read"], "mandate_days": 60}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	root := `SELECT count(*) FROM agents a JOIN mandates m ON m.id = a.root_mandate_id WHERE a.id = ?
		AND m.expires_at BETWEEN now() + ?::interval - interval '1 hour' AND now() + ?::interval + interval '1 hour'`

	got = b.Admin("val", "POST", "/agents/hire", `{"role": "long", "project": "web", "id": "role-days"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, 1, b.Count(root, "role-days", "60 days", "60 days"), "no days: the role's 60")

	got = b.Admin("val", "POST", "/agents/hire", `{"role": "long", "project": "web", "id": "own-days", "days": 7}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	require.Equal(t, 1, b.Count(root, "own-days", "7 days", "7 days"), "days 7: 7, whatever the role says")
}

// GET /agents shows each agent's preferences as stored: the object set, or
// an empty object for an agent that has none, never null.
func TestTheAgentListShowsEachAgentsPreferences(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	got := b.Admin("val", "PUT", "/agents/reg-web/preferences", `{"preferences": {"language": "th", "style": {"short": true}}}`)
	require.Equal(t, http.StatusOK, got.Status, got.Raw)
	list := b.Admin("vic", "GET", "/agents", "")
	require.Equal(t, http.StatusOK, list.Status, list.Raw)
	prefs := map[string]any{}
	for _, a := range list.Body["agents"].([]any) {
		prefs[a.(map[string]any)["id"].(string)] = a.(map[string]any)["preferences"]
	}
	require.Equal(t, map[string]any{
		"reg-web":   map[string]any{"language": "th", "style": map[string]any{"short": true}},
		"hired-web": map[string]any{},
	}, prefs)
}
