package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

func TestMain(m *testing.M) {
	installAdminErrors()
	pgtest.Main(m)
}

// cli runs pact-admin in-process against one test database and remembers
// which commands ran.
type cli struct {
	t   *testing.T
	env map[string]string
	ran map[string]bool
}

func newCLI(t *testing.T) *cli {
	return &cli{t: t, ran: map[string]bool{}, env: map[string]string{
		"DATABASE_URL":     pgtest.NewDSN(t),
		"PACT_SIGNING_KEY": strings.Repeat("k", 40),
	}}
}

func (c *cli) run(args ...string) (code int, stdout, stderr string) {
	c.t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, func(k string) string { return c.env[k] }, &out, &errOut)
	if len(args) > 0 {
		c.ran[args[0]] = true
	}
	return code, out.String(), errOut.String()
}

// ok runs a command that must succeed and decodes its JSON output.
func (c *cli) ok(args ...string) map[string]any {
	c.t.Helper()
	code, out, errOut := c.run(args...)
	require.Equal(c.t, 0, code, "pact-admin %s: %s", strings.Join(args, " "), errOut)
	var v any
	require.NoError(c.t, json.Unmarshal([]byte(out), &v), out)
	if m, isMap := v.(map[string]any); isMap {
		return m
	}
	return map[string]any{"value": v}
}

// refused runs a command that must be refused with code.
func (c *cli) refused(code string, args ...string) string {
	c.t.Helper()
	exit, out, errOut := c.run(args...)
	require.Equal(c.t, 1, exit, "pact-admin %s should fail; printed %s", strings.Join(args, " "), out)
	var body struct{ Error, Message string }
	require.NoError(c.t, json.Unmarshal([]byte(errOut), &body), errOut)
	require.Equal(c.t, code, body.Error, "pact-admin %s: %s", strings.Join(args, " "), body.Message)
	require.NotEmpty(c.t, body.Message)
	return body.Message
}

func TestEveryCommandWorksEndToEnd(t *testing.T) {
	c := newCLI(t)
	require.Equal(t, map[string]any{"applied": []any{}, "closed_task_mandates_revoked": 0.0}, c.ok("migrate"))
	require.Contains(t, c.ok("key-new")["entry"], "=")

	c.ok("human-add", "ana", "Ana Owner", "owner", "--email", "ana@example.com")
	c.ok("human-add", "val", "Val", "approver", "--by", "ana")
	c.ok("project-add", "web", "Web site", "--by", "ana")
	require.Equal(t, true, c.ok("project-set", "web", "--by", "ana", "--frozen", "true")["frozen"])
	c.ok("project-set", "web", "--by", "ana", "--frozen=false")

	reg := c.ok("agent-register", "code-web", "--by", "val", "--client", "code", "--projects", "web",
		"--limits", `{"runs": 50, "turns": 2000}`, "--delegations", "1", "--days", "7")
	require.Regexp(t, `^pact_`, reg["token"])
	require.Equal(t, "/mcp/a/code-web", reg["connector_path"])

	// People's decisions on tasks, as the Admin API takes them.
	db, err := sql.Open("pgx", c.env["DATABASE_URL"])
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	const waiting, rejected, deferred = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333"
	_, err = db.Exec(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status, deferred, defer_reason) VALUES
		($2, 'web', 'Deploy', 'code-web', $1, 'auth_required', false, NULL),
		($3, 'web', 'Pay', 'code-web', $1, 'auth_required', false, NULL),
		($4, 'web', 'Which database?', 'code-web', $1, 'input_required', true, 'Postgres or SQLite?')`,
		reg["root_mandate_id"], waiting, rejected, deferred)
	require.NoError(t, err)
	require.Equal(t, "submitted", c.ok("task-approve", waiting, "--by", "val")["status"])
	require.Equal(t, "rejected", c.ok("task-reject", rejected, "--by", "val")["status"])
	require.Equal(t, "submitted", c.ok("task-resume", deferred, "--by", "val", "--answer", "PostgreSQL")["status"])
	require.Equal(t, "code-web", c.ok("task-message", deferred, "Use the managed one", "--by", "val")["to"])
	require.Contains(t, c.refused("invalid_request", "task-approve", waiting, "--by", "val"), "task "+waiting)
	require.Contains(t, c.refused("invalid_request", "task-resume", "not-a-task", "--by", "val"), "a task id is a UUID")
	c.refused("forbidden", "task-message", deferred, "hi", "--by", "vic-nobody")

	c.ok("human-add", "vic", "Vic", "viewer", "--by", "ana")
	exerciseAPICommands(t, c, db)

	require.Equal(t, "paused", c.ok("agent-status", "code-web", "paused", "--by", "val")["status"])
	c.ok("agent-status", "code-web", "active", "--by", "val")
	require.Equal(t, map[string]any{"language": "en"}, c.ok("agent-prefs", "code-web", `{"language":"en"}`, "--by", "val")["preferences"])
	require.Regexp(t, `^pact_`, c.ok("token-issue", "code-web", "--by", "val", "--days", "1")["token"])
	require.EqualValues(t, 2, c.ok("token-revoke", "code-web", "--by", "val")["revoked"])

	m := c.ok("mandate-issue", "code-web", "--by", "val", "--scope", "task.read@project:web,task.work@project:web", "--limits", `{"runs": 3}`)
	id, _ := m["id"].(string)
	require.NotEmpty(t, id, "%v", m)
	require.Equal(t, "val", m["issuer"])
	require.EqualValues(t, 0, c.ok("mandate-revoke", id, "--by", "val")["descendant_mandates"])

	key, principal := "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw"
	added := c.ok("agent-key-add", "code-web", key, "--by", "val")
	require.Equal(t, "code-web", added["agent_id"])
	require.Len(t, added["kid"], 16)
	require.EqualValues(t, 1, c.ok("agent-key-revoke", "code-web", added["kid"].(string), "--by", "val")["revoked"])
	require.Equal(t, false, c.ok("trusted-root-add", principal, "--human", "val", "--label", "Our CA", "--by", "ana")["reactivated"])
	require.EqualValues(t, 1, c.ok("trusted-root-revoke", principal, "--by", "ana")["revoked"])
	require.Equal(t, true, c.ok("trusted-root-add", principal, "--human", "ana", "--by", "ana")["reactivated"])
	roots := c.ok("trusted-root-list", "--by", "val")["value"].([]any)
	require.Len(t, roots, 1)
	require.Equal(t, principal, roots[0].(map[string]any)["principal"])
	require.Nil(t, roots[0].(map[string]any)["revoked_at"])

	c.ok("halt", "--by", "ana")
	c.ok("unhalt", "--by", "ana")

	orgs := c.ok("org-list")["value"].([]any)
	require.Len(t, orgs, 1)
	c.ok("org-rename", "default", "Ana's company")
	c.ok("org-halt", "default")
	c.ok("org-unhalt", "default")
	c.ok("platform-halt")
	c.ok("platform-unhalt")
	c.ok("plugin-pin", fakePlugin(t, t.TempDir(), "notifier-hello"))

	// No credential plugin is configured here: the import gets as far as
	// asking for it and is refused, logged, with nothing imported.
	c.refused("not_found", "credential-import", "code-web", "stack", "--by", "val")
	c.ok("payload-erase", "1", "--by", "ana")
	verdicts := c.ok("log-verify")
	require.Contains(t, verdicts, "default")
	c.ok("log-verify", "--org", "default")
	c.ok("log-export", "--org", "default", "--out", filepath.Join(t.TempDir(), "default.jsonl"))

	var names []string
	for n := range commands() {
		if !c.ran[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	require.Empty(t, names, "every command in the table is exercised here")
}

func TestBadInputGetsItsCodeAndChangesNothing(t *testing.T) {
	c := newCLI(t)
	c.ok("human-add", "ana", "Ana", "owner")
	c.ok("project-add", "web", "Web", "--by", "ana")
	cases := []struct {
		code string
		args []string
	}{
		{"forbidden", []string{"project-add", "api", "API"}}, // missing --by
		{"forbidden", []string{"human-add", "bo", "Bo", "viewer"}},
		{"forbidden", []string{"project-add", "api", "API", "--by", "nobody"}},
		{"invalid_request", []string{"project-add", "Bad_ID", "API", "--by", "ana"}},
		{"invalid_request", []string{"agent-register", "a1", "--by", "ana", "--client", "code", "--projects", "web", "--scope", "task work"}},
		{"invalid_request", []string{"agent-register", "a1", "--by", "ana", "--client", "code", "--projects", "web", "--limits", `{"runs": -1}`}},
		{"invalid_request", []string{"agent-register", "a1", "--by", "ana", "--client", "code", "--projects", "web", "--limits", `{"runs": NaN}`}},
		{"invalid_request", []string{"agent-register", "a1", "--by", "ana", "--client", "code", "--projects", "web", "--limits", `{"runs": "abc"}`}},
		{"invalid_request", []string{"agent-register", "a1", "--by", "ana", "--client", "code", "--projects", "web", "--limits", `[1]`}},
		{"invalid_request", []string{"agent-register", "a1", "--by", "ana", "--client", "code", "--projects", "web", "--delegations", "x"}},
		{"project_required", []string{"agent-register", "a1", "--by", "ana", "--client", "code"}},
		{"not_found", []string{"agent-prefs", "ghost", `{}`, "--by", "ana"}},
		{"invalid_request", []string{"agent-prefs", "ghost", `{"a":"` + strings.Repeat("x", 4001) + `"}`, "--by", "ana"}},
		{"invalid_request", []string{"human-add", "bo", "Bo"}},
		{"invalid_request", []string{"no-such-command"}},
		{"invalid_request", []string{"payload-erase", "first", "--by", "ana"}},
		{"not_found", []string{"mandate-revoke", "not-a-uuid", "--by", "ana"}},
		{"not_found", []string{"log-verify", "--org", "nowhere"}},
		{"not_found", []string{"org-halt", "nowhere"}},
		{"invalid_request", []string{"agent-key-add", "ghost", "not-a-key", "--by", "ana"}},
		{"not_found", []string{"agent-key-revoke", "ghost", "AAAAAAAAAAAAAAAA", "--by", "ana"}},
		{"forbidden", []string{"trusted-root-add", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "--human", "ana"}},
		{"not_found", []string{"trusted-root-add", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "--human", "nobody", "--by", "ana"}},
		{"not_found", []string{"trusted-root-revoke", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "--by", "ana"}},
		{"forbidden", []string{"trusted-root-list", "--by", "nobody"}},
	}
	before := c.ok("org-list")["value"]
	for _, tc := range cases {
		c.refused(tc.code, tc.args...)
	}
	require.Equal(t, before, c.ok("org-list")["value"], "refusals changed no organization")
	c.ok("log-verify")
}

func TestHelp(t *testing.T) {
	c := newCLI(t)
	code, out, _ := c.run("--help")
	require.Zero(t, code)
	for name, cmd := range commands() {
		require.Contains(t, out, name)
		code, sub, _ := c.run(name, "--help")
		require.Zero(t, code, name)
		require.Contains(t, sub, "Usage: pact-admin "+name)
		require.Contains(t, sub, cmd.summary)
	}
}

// A person revoking a mandate here cancels the open tasks hanging on it, as
// through the board: pact-admin registers the same module hooks.
func TestMandateRevokeCancelsTasksUnderIt(t *testing.T) {
	c := newCLI(t)
	c.ok("human-add", "ana", "Ana", "owner")
	c.ok("project-add", "web", "Web", "--by", "ana")
	reg := c.ok("agent-register", "code-web", "--by", "ana", "--client", "code", "--projects", "web")
	root := reg["root_mandate_id"].(string)
	open := func() *sql.DB {
		db, err := sql.Open("pgx", c.env["DATABASE_URL"])
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open()
	_, err := db.Exec(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
		VALUES ('11111111-1111-4111-8111-111111111111', 'web', 'Open task', 'code-web', $1, 'submitted')`, root)
	require.NoError(t, err)
	c.ok("mandate-revoke", root, "--by", "ana")
	var status, reason string
	require.NoError(t, db.QueryRow(`SELECT status, result->>'reason' FROM tasks`).Scan(&status, &reason))
	require.Equal(t, "canceled", status)
	require.Equal(t, "mandate_revoked", reason)
}
