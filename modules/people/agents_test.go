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
	"github.com/pactboard/pact/modules/people"
)

// withAgents adds to newBoard's board the agent reg-web (registered by
// hand, code, web) and hired-web (hired from role code by val), and in
// acme the role rocketeer and the agent rocket-bot.
func withAgents(t *testing.T, b *board) {
	t.Helper()
	ctx := context.Background()
	_, err := b.ident.RegisterAgent(ctx, "ana", identity.AgentInput{ID: "reg-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = b.mod.Hire(ctx, "val", people.HireInput{Role: "code", Project: "web", ID: "hired-web"})
	require.NoError(t, err)
	_, err = b.d.ExecContext(ctx, `
		INSERT INTO agent_roles (org_id, id, name, client, actions) VALUES ('acme', 'rocketeer', 'Rocketeer', 'code', '{task.read}');
		INSERT INTO agents (id, org_id, owner, client, role_id) VALUES ('rocket-bot', 'acme', 'bo', 'code', 'rocketeer');`)
	require.NoError(t, err)
}

// connectCode posts body to POST /connect on the board (no token).
func (b *board) connectCode(t *testing.T, body string) reply {
	t.Helper()
	req, err := http.NewRequest("POST", b.server.URL+"/connect", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := reply{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func TestAgentOperationsForEachRole(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	roles := []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}}
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
			t.Run(o.method+o.path+"/"+string(r.role), func(t *testing.T) {
				body := ""
				if o.body != nil {
					body = o.body(r.id)
				}
				got := b.call(t, r.id, o.method, o.path, body)
				require.Equal(t, "no-store", got.header.Get("Cache-Control"))
				if r.role.AtLeast(o.min) {
					require.Equal(t, o.ok, got.status, got.raw)
					return
				}
				require.Equal(t, http.StatusForbidden, got.status, got.raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs %s", r.id, r.role, o.min)}, got.body)
			})
		}
	}
	// Banning needs an owner even though the operation admits approvers.
	got := b.call(t, "val", "POST", "/agents/reg-web/status", `{"status": "banned"}`)
	require.Equal(t, http.StatusForbidden, got.status, got.raw)
	require.Equal(t, "val is approver; this needs owner", got.body["message"])
	got = b.call(t, "ana", "POST", "/agents/reg-web/status", `{"status": "banned"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "banned", got.body["status"])
}

func TestHireGivesASetupCodeRedeemedOnce(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "val", "POST", "/agents/hire", `{"role": "code", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	require.Equal(t, "code-web", got.body["agent_id"], "id defaults to <role>-<project>")
	require.Equal(t, "code", got.body["role"])
	require.NotContains(t, got.raw, "pact_", "a hire never shows a token")
	c := got.body["connect"].(map[string]any)
	require.Equal(t, "setup_code", c["kind"])
	code := c["code"].(string)
	require.Regexp(t, `^pcs_[A-Za-z0-9_-]{24}$`, code)
	require.Equal(t, "pact-connect "+b.cfg.BoardURL+" "+code, c["command"])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM setup_codes WHERE code_hash = ? AND expires_at BETWEEN now() + interval '14 minutes' AND now() + interval '15 minutes'`,
		identity.HashToken(code)), "only the hash is kept, for 15 minutes")
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM agent_tokens WHERE agent_id = 'code-web'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM mandates WHERE holder = 'code-web' AND parent_id IS NULL
		AND delegations_left = 3 AND scope = '{task.read@project:web,task.post@project:web,task.work@project:web,context.write@project:web}'`),
		"the role's scope and delegations")
	conn := b.call(t, "vic", "GET", "/agents/code-web/connection", "")
	require.Equal(t, 200, conn.status, conn.raw)
	require.Equal(t, "waiting_for_code", conn.body["state"])

	got = b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, "no-store", got.header.Get("Cache-Control"))
	require.Equal(t, "code-web", got.body["agent_id"])
	require.Equal(t, "web", got.body["project"])
	require.Equal(t, "code", got.body["role"])
	require.Equal(t, b.cfg.BoardURL+"/mcp/a/code-web", got.body["mcp_url"])
	token := got.body["token"].(string)
	ok, err := b.ident.AuthenticateAgent(context.Background(), b.d, "code-web", token)
	require.NoError(t, err)
	require.True(t, ok, "the token is a live token of that agent")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM agent_tokens WHERE agent_id = 'code-web'
		AND expires_at BETWEEN now() + interval '89 days' AND now() + interval '91 days'`), "the role's token term")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.agent.connect' AND actor = 'human:val' AND outcome = 'ok'`))
	require.Equal(t, "code_redeemed", b.call(t, "vic", "GET", "/agents/code-web/connection", "").body["state"])

	again := b.connectCode(t, `{"code": "`+code+`"}`)
	require.Equal(t, http.StatusForbidden, again.status, again.raw)
	require.Equal(t, map[string]any{"error": "forbidden", "message": people.RedeemRefused}, again.body, "single use")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM agent_tokens WHERE agent_id = 'code-web'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.agent.connect' AND e.actor = 'agent:code-web' AND e.outcome = 'forbidden'
		AND p.content->>'reason' = 'used'`), "a used code presented again is logged in its organization")

	_, err = b.d.ExecContext(context.Background(), `UPDATE agents SET last_seen = now() WHERE id = 'code-web'`)
	require.NoError(t, err)
	require.Equal(t, "connected", b.call(t, "vic", "GET", "/agents/code-web/connection", "").body["state"])

	// A new code for a new machine; it expires unused.
	got = b.call(t, "val", "POST", "/agents/code-web/setup-code", "")
	require.Equal(t, 200, got.status, got.raw)
	code2 := got.body["code"].(string)
	_, err = b.d.ExecContext(context.Background(), `UPDATE setup_codes SET expires_at = now() - interval '1 second' WHERE code_hash = ?`, identity.HashToken(code2))
	require.NoError(t, err)
	require.Equal(t, http.StatusForbidden, b.connectCode(t, `{"code": "`+code2+`"}`).status, "expired")
	require.Equal(t, "expired", b.call(t, "vic", "GET", "/agents/code-web/connection", "").body["state"])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.agent.connect' AND e.outcome = 'forbidden' AND p.content->>'reason' = 'expired'`))
	refusals := b.count(t, `SELECT count(*) FROM entries WHERE outcome <> 'ok'`)
	require.Equal(t, http.StatusForbidden, b.connectCode(t, `{"code": "pcs_unknown"}`).status)
	require.Equal(t, refusals, b.count(t, `SELECT count(*) FROM entries WHERE outcome <> 'ok'`),
		"an unknown code names no organization: nothing is logged")
}

func TestHireFromOAuthAndRunnerRoles(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "val", "POST", "/agents/hire", `{"role": "chat", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	require.Equal(t, map[string]any{"kind": "oauth", "url": b.cfg.BoardURL + "/mcp/a/chat-web"}, got.body["connect"])
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM setup_codes`))
	got = b.call(t, "val", "POST", "/agents/chat-web/setup-code", "")
	require.Equal(t, 200, got.status)
	require.Equal(t, "oauth", got.body["kind"])

	got = b.call(t, "val", "POST", "/agents/hire", `{"role": "secretary", "project": "web", "owner": "vic", "limits": {"runs": 5}}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM agents WHERE id = 'secretary-web' AND owner = 'vic' AND role_id = 'secretary'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM mandates WHERE holder = 'secretary-web' AND limits = '{"runs": 5}'`), "limits override the role's")
	red := b.connectCode(t, `{"code": "`+got.body["connect"].(map[string]any)["code"].(string)+`"}`)
	require.Equal(t, 200, red.status, red.raw)
	settings := red.body["settings"].(map[string]any)
	require.Equal(t, "runner-web,code-web", settings["PACT_RUNNER_WORKERS"], "{project} filled in")
	require.Contains(t, settings["PACT_RUNNER_SCHEDULE"], `project_id=\"web\"`)
}

func TestHireReplacesBansTheOldAgent(t *testing.T) {
	b := newBoard(t)
	got := b.call(t, "val", "POST", "/agents/hire", `{"role": "code", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	oldCode := got.body["connect"].(map[string]any)["code"].(string)
	require.Equal(t, 200, b.call(t, "val", "POST", "/agents/code-web/tokens", `{}`).status)

	got = b.call(t, "val", "POST", "/agents/hire", `{"role": "code", "project": "web", "id": "code-web-2", "replaces": "code-web"}`)
	require.Equal(t, http.StatusCreated, got.status, got.raw)
	list := b.call(t, "vic", "GET", "/agents", "")
	require.Equal(t, 200, list.status)
	byID := map[string]map[string]any{}
	for _, a := range list.body["agents"].([]any) {
		byID[a.(map[string]any)["id"].(string)] = a.(map[string]any)
	}
	require.Equal(t, "banned", byID["code-web"]["status"])
	require.Equal(t, "code-web-2", byID["code-web"]["replaced_by"])
	require.Equal(t, 0.0, byID["code-web"]["live_tokens"], "its tokens are revoked")
	require.Equal(t, "active", byID["code-web-2"]["status"])
	require.Equal(t, "code", byID["code-web-2"]["role_id"])
	require.Equal(t, 1.0, byID["code-web-2"]["live_mandates"])
	require.Equal(t, false, byID["code-web-2"]["online"])
	require.Equal(t, http.StatusForbidden, b.connectCode(t, `{"code": "`+oldCode+`"}`).status, "a banned agent's code is refused")
	require.Equal(t, http.StatusNotFound, b.call(t, "val", "POST", "/agents/code-web/setup-code", "").status)

	got = b.call(t, "val", "POST", "/agents/hire", `{"role": "code", "project": "web", "id": "code-web-3", "replaces": "nobody"}`)
	require.Equal(t, http.StatusNotFound, got.status, got.raw)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM agents WHERE id = 'code-web-3'`), "nothing half-written")
}

func TestRolesRenewAndRoleChange(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	withAgents(t, b)
	got := b.call(t, "vic", "GET", "/roles", "")
	require.Equal(t, 200, got.status, got.raw)
	var ids []string
	for _, r := range got.body["roles"].([]any) {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	require.Equal(t, []string{"chat", "code", "gemini", "runner", "worker", "secretary", "design", "cowork"}, ids)

	got = b.call(t, "val", "PUT", "/roles/reviewer", `{"name": "Reviewer", "client": "code", "actions": ["task.read", "task.work"], "limits": {"runs": 3}}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, 1.0, got.body["delegations"])
	require.Equal(t, 90.0, got.body["token_days"])

	// Renew: a fresh root from the role; the old one keeps running.
	var before string
	require.NoError(t, b.d.NewRaw(`SELECT root_mandate_id::text FROM agents WHERE id = 'hired-web'`).Scan(ctx, &before))
	got = b.call(t, "val", "POST", "/agents/hired-web/renew", "")
	require.Equal(t, 200, got.status, got.raw)
	require.NotEqual(t, before, got.body["mandate_id"])
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM mandates WHERE holder = 'hired-web' AND revoked_at IS NULL`))
	got = b.call(t, "val", "POST", "/agents/reg-web/renew", "")
	require.Equal(t, http.StatusBadRequest, got.status, got.raw)
	require.Contains(t, got.body["message"], "not hired from a role")

	// A role change reissues from the new role and revokes every old root.
	got = b.call(t, "val", "POST", "/agents/hired-web/role", `{"role_id": "reviewer"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Len(t, got.body["revoked_mandates"], 2)
	require.Equal(t, "reviewer", got.body["agent"].(map[string]any)["role_id"])
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM mandates WHERE holder = 'hired-web' AND revoked_at IS NULL
		AND scope = '{task.read@project:web,task.work@project:web}' AND limits = '{"runs": 3}'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.agent.role' AND outcome = 'ok'`))

	for _, tc := range []struct{ body, says string }{
		{`{"role_id": "chat"}`, "role chat is for chat agents"},
		{`{"role_id": "rocketeer"}`, "role rocketeer does not exist"},
	} {
		got = b.call(t, "val", "POST", "/agents/hired-web/role", tc.body)
		require.Contains(t, []int{400, 404}, got.status, got.raw)
		require.Contains(t, got.body["message"], tc.says)
	}
	got = b.call(t, "val", "PATCH", "/agents/hired-web", `{"owner": "vic"}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Empty(t, got.body["revoked_mandates"], "a new owner changes nothing else")
	require.Equal(t, "vic", got.body["agent"].(map[string]any)["owner"])
	got = b.call(t, "val", "PATCH", "/agents/hired-web", `{"projects": ["web", "rocket"]}`)
	require.Equal(t, http.StatusBadRequest, got.status, got.raw)

	// Archived roles hire no one; their agents keep working.
	got = b.call(t, "val", "POST", "/roles/reviewer/archive", "")
	require.Equal(t, 200, got.status, got.raw)
	require.NotNil(t, got.body["archived_at"])
	got = b.call(t, "val", "POST", "/agents/hire", `{"role": "reviewer", "project": "web"}`)
	require.Equal(t, http.StatusBadRequest, got.status, got.raw)
	require.Contains(t, got.body["message"], "archived")
	require.Len(t, b.call(t, "vic", "GET", "/roles", "").body["roles"], 8)
	require.Len(t, b.call(t, "vic", "GET", "/roles?archived=true", "").body["roles"], 9)
	require.Equal(t, 200, b.call(t, "val", "PUT", "/roles/reviewer", `{"name": "Reviewer", "client": "code", "actions": ["task.read"]}`).status)
	require.Len(t, b.call(t, "vic", "GET", "/roles", "").body["roles"], 9, "saving un-archives")

	got = b.call(t, "val", "PUT", "/roles/db-runner", `{"name": "DB", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "postgres://u:hunter2@db/x", "PACT_RUNNER_MAX_TURNS": "5"}}`)
	require.Equal(t, 200, got.status, got.raw)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM payloads WHERE content::text LIKE '%hunter2%'`), "the log never holds the database URL")
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
			got := b.call(t, "ana", tc.method, tc.path, tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.NotEmpty(t, got.body["error"], got.raw)
			if tc.status == 400 || tc.status == 422 {
				require.Contains(t, []any{"invalid_request", "project_required"}, got.body["error"], got.raw)
			}
		})
	}
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM agents WHERE id = 'x'`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM agent_roles WHERE id = 'x'`))

	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"Oversize", `{"code": "pcs_` + strings.Repeat("a", 5000) + `"}`, 413, "body too large"},
		{"NotACode", `{"code": "pact_abc"}`, 400, `send {"code": "pcs_..."}`},
		{"Malformed", `{"code": `, 400, `send {"code": "pcs_..."}`},
	} {
		t.Run("Connect"+tc.name, func(t *testing.T) {
			got := b.connectCode(t, tc.body)
			require.Equal(t, tc.status, got.status, got.raw)
			require.Equal(t, map[string]any{"error": "invalid_request", "message": tc.says}, got.body)
		})
	}
}

func TestAnotherOrganizationsAgentsAndRolesAnswerLikeMissingOnes(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
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
		other := b.call(t, "ana", tc.method, fmt.Sprintf(tc.path, tc.foreign), body(tc.foreign))
		missing := b.call(t, "ana", tc.method, fmt.Sprintf(tc.path, tc.missing), body(tc.missing))
		require.Equal(t, http.StatusNotFound, other.status, other.raw)
		require.Equal(t, strings.ReplaceAll(missing.raw, tc.missing, "?"), strings.ReplaceAll(other.raw, tc.foreign, "?"))
	}
	got := b.call(t, "ana", "POST", "/agents/hire", `{"role": "rocketeer", "project": "web"}`)
	require.Equal(t, http.StatusNotFound, got.status, "acme's role hires no one here")
	got = b.call(t, "ana", "POST", "/agents/hire", `{"role": "code", "project": "rocket"}`)
	require.Equal(t, http.StatusNotFound, got.status, got.raw)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM agent_roles WHERE org_id = 'acme' AND archived_at IS NULL`))
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM setup_codes s JOIN agents a ON a.id = s.agent_id WHERE a.org_id = 'acme'`))
	for _, a := range b.call(t, "vic", "GET", "/agents", "").body["agents"].([]any) {
		require.NotEqual(t, "rocket-bot", a.(map[string]any)["id"])
	}
}

// A role's DATABASE_URL carries a password: listing roles says it is set
// and never shows it, to anyone.
func TestRoleDatabaseURLIsNeverListed(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	got := b.call(t, "val", "PUT", "/roles/dbrunner", `{"name": "DB runner", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "postgres://app:hunter2@db/app"}}`)
	require.Equal(t, 200, got.status, got.raw)
	for _, who := range []string{"vic", "val", "ana"} {
		got = b.call(t, who, "GET", "/roles", "")
		require.Equal(t, 200, got.status, got.raw)
		require.NotContains(t, got.raw, "hunter2")
		require.Contains(t, got.raw, `"DATABASE_URL":"[REDACTED]"`)
	}
}
