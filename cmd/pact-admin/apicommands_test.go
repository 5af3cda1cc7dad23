package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/modules/pacts"
)

// openApp opens the test database as a command would, for what the tests
// need beside the commands (an agent's pact, redeeming a setup code).
func (c *cli) openApp() *app {
	c.t.Helper()
	cfg, err := boot.Load(func(k string) string { return c.env[k] })
	require.NoError(c.t, err)
	a := &app{cfg: cfg, stdout: io.Discard, stderr: io.Discard}
	release, err := a.open(context.Background())
	require.NoError(c.t, err)
	c.t.Cleanup(release)
	return a
}

// setupCodeShape is what pact-connect redeems: pcs_ and 18 random bytes,
// base64url (cmd/pact-connect/redeem.go, modules/people/setupcodes.go).
var setupCodeShape = regexp.MustCompile(`^pcs_[A-Za-z0-9_-]{24}$`)

// exerciseAPICommands runs the commands of the Admin API's hiring, roles,
// task, pact and notification operations against the board of c, where
// owner ana, approver val, project web and agent code-web exist: a success
// and a refusal for each family, and the change each makes.
func exerciseAPICommands(t *testing.T, c *cli, db *sql.DB) {
	ctx := context.Background()
	a := c.openApp()

	// Roles.
	role := c.ok("role-save", "coder", "--by", "val", "--name", "Coder", "--client", "code", "--actions", "task.read,task.work",
		"--limits", `{"runs": 10}`, "--setting", "PACT_RUNNER_MODEL=sonnet", "--mandate-days", "7")
	require.Equal(t, "Coder", role["name"])
	require.Equal(t, map[string]any{"runs": 10.0}, role["limits"])
	require.Contains(t, c.refused("invalid_request", "role-save", "bad", "--by", "val", "--name", "Bad", "--client", "code"), "at least one action")
	c.refused("forbidden", "role-save", "runner", "--by", "val", "--name", "R", "--client", "runner", "--actions", "task.work",
		"--setting", "PACT_RUNNER_COMMAND=rm -rf /")
	c.ok("role-save", "old", "--by", "val", "--name", "Old", "--client", "code", "--actions", "task.read")
	require.NotNil(t, c.ok("role-archive", "old", "--by", "val")["archived_at"])
	c.refused("not_found", "role-archive", "ghost", "--by", "val")
	roleIDs := func(args ...string) (ids []string) {
		for _, r := range c.ok(append([]string{"role-list"}, args...)...)["value"].([]any) {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		return ids
	}
	require.Contains(t, roleIDs("--by", "val"), "coder")
	require.NotContains(t, roleIDs("--by", "val"), "old")
	require.Contains(t, roleIDs("--by", "val", "--archived"), "old")
	c.refused("forbidden", "role-list", "--by", "nobody")

	// Hiring and setup codes: the code is one pact-connect redeems, once.
	hired := c.ok("hire", "coder", "web", "--by", "val")
	require.Equal(t, "coder-web", hired["agent_id"])
	conn := hired["connect"].(map[string]any)
	require.Equal(t, "setup_code", conn["kind"])
	code := conn["code"].(string)
	require.Regexp(t, setupCodeShape, code)
	require.True(t, strings.HasPrefix(conn["command"].(string), "pact-connect ") && strings.HasSuffix(conn["command"].(string), " "+code), conn["command"])
	redeemed, err := a.people.Service().RedeemSetupCode(ctx, code)
	require.NoError(t, err)
	require.Equal(t, "coder-web", redeemed.AgentID)
	require.Regexp(t, `^pact_`, redeemed.Token)
	c.refused("invalid_request", "hire", "old", "web", "--by", "val") // archived
	c.refused("id_taken", "hire", "coder", "web", "--by", "val")
	fresh := c.ok("setup-code", "coder-web", "--by", "val")
	require.Regexp(t, setupCodeShape, fresh["code"])
	require.NotEqual(t, code, fresh["code"])
	c.refused("not_found", "setup-code", "ghost", "--by", "val")
	c.refused("forbidden", "setup-code", "coder-web", "--by", "nobody")

	// The organization's lists.
	ids := func(cmd string, args ...string) (ids []string) {
		for _, r := range c.ok(append([]string{cmd}, args...)...)["value"].([]any) {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		return ids
	}
	require.ElementsMatch(t, []string{"code-web", "coder-web"}, ids("agent-list", "--by", "vic"))
	require.ElementsMatch(t, []string{"ana", "val", "vic"}, ids("human-list", "--by", "vic"))
	require.Equal(t, []string{"web"}, ids("project-list", "--by", "vic"))
	c.refused("forbidden", "agent-list", "--by", "nobody")
	c.refused("forbidden", "human-list")
	c.refused("forbidden", "project-list", "--by", "nobody")

	// Tasks: cancel, assign, release, edit and a changed answer.
	const open, held, gone = "44444444-4444-4444-8444-444444444444", "55555555-5555-4555-8555-555555555555",
		"66666666-6666-4666-8666-666666666666"
	var root string
	require.NoError(t, db.QueryRow(`SELECT root_mandate_id FROM agents WHERE id = 'code-web'`).Scan(&root))
	_, err = db.Exec(`INSERT INTO tasks (id, project_id, title, body, created_by, mandate_id, status, assignee, assignee_mandate_id) VALUES
		($2, 'web', 'Write docs', 'all of them', 'code-web', $1, 'submitted', NULL, NULL),
		($3, 'web', 'Fix bug', '', 'code-web', $1, 'working', 'code-web', $1),
		($4, 'web', 'Old idea', '', 'code-web', $1, 'submitted', NULL, NULL)`, root, open, held, gone)
	require.NoError(t, err)
	edited := c.ok("task-edit", open, "--by", "val", "--title", "Write the docs")
	require.Equal(t, "Write the docs", edited["title"])
	require.Equal(t, "all of them", edited["body"], "an absent --body leaves it")
	require.Contains(t, c.refused("invalid_request", "task-edit", open, "--by", "val"), "title or body")
	assigned := c.ok("task-assign", open, "--to", "coder-web", "--by", "val")
	require.Equal(t, "coder-web", assigned["delegate_to"])
	c.refused("invalid_request", "task-assign", open, "--by", "val")
	c.refused("invalid_request", "task-assign", held, "--to", "coder-web", "--by", "val") // held: release it first
	require.Nil(t, c.ok("task-assign", open, "--nobody", "--by", "val")["delegate_to"])
	released := c.ok("task-release", held, "--by", "val")
	require.Equal(t, "submitted", released["status"])
	require.Nil(t, released["assignee"])
	c.refused("invalid_request", "task-release", held, "--by", "val")
	canceled := c.ok("task-cancel", gone, "--by", "val", "--reason", "not needed")
	require.Equal(t, "canceled", canceled["task"].(map[string]any)["status"])
	c.refused("invalid_request", "task-cancel", gone, "--by", "val")
	c.refused("invalid_request", "task-cancel", "not-a-task", "--by", "val")
	c.refused("invalid_request", "task-answer", open, "Friday", "--by", "val") // nothing was asked
	var status string
	require.NoError(t, db.QueryRow(`SELECT status FROM tasks WHERE id = $1`, gone).Scan(&status))
	require.Equal(t, "canceled", status)
	require.Equal(t, []string{gone}, ids("task-list", "--by", "vic", "--status", "canceled"))
	require.NotContains(t, ids("task-list", "--by", "vic", "--open"), gone)
	require.Contains(t, ids("task-list", "--by", "vic", "--project", "web", "--agent", "code-web"), open)
	require.Contains(t, c.refused("invalid_request", "task-list", "--by", "vic", "--status", "done"), "status must be one of")
	c.refused("forbidden", "task-list", "--by", "nobody")

	// Pacts: an agent starts one and raises a decision; a person lists,
	// reads, answers and closes it.
	svc := pacts.NewService(a.db, a.log, a.ident)
	agent := pacts.Actor{Agent: "code-web", Org: "default"}
	acc := pacts.Access{Read: []string{"web"}, Write: []string{"web"}}
	var pactID, decisionID string
	require.NoError(t, a.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if pactID, _, err = svc.Create(ctx, tx, agent, acc, "val", pacts.NewPact{ProjectID: "web", Name: "Launch",
			Purpose: "Ship the site", Creator: pacts.SeatInput{Agent: "code-web", Prefix: "C"}}); err != nil {
			return err
		}
		raised, _, err := svc.Raise(ctx, tx, agent, acc, pactID, "Which day?", []string{"Monday", "Friday"})
		decisionID = raised.DecisionID
		return err
	}))
	jobs := c.ok("pact-list", "--by", "val")["value"].([]any)
	require.Len(t, jobs, 1)
	require.Equal(t, pactID, jobs[0].(map[string]any)["id"])
	require.Empty(t, c.ok("pact-list", "--by", "val", "--project", "other")["value"])
	c.refused("forbidden", "pact-list", "--by", "nobody")
	shown := c.ok("pact-show", pactID, "--by", "val")["pact"].(map[string]any)
	require.Equal(t, "Launch", shown["name"])
	c.refused("not_found", "pact-show", "77777777-7777-4777-8777-777777777777", "--by", "val")
	c.refused("invalid_request", "pact-show", "launch", "--by", "val")
	questions := c.ok("pact-questions", "--by", "val")["value"].([]any)
	require.Len(t, questions, 1)
	require.Equal(t, decisionID, questions[0].(map[string]any)["id"])
	c.refused("invalid_request", "pact-answer", decisionID, "--choice", "Monday", "--not-needed", "--by", "val")
	c.refused("invalid_request", "pact-answer", decisionID, "--choice", "Sunday", "--by", "val")
	c.ok("pact-answer", decisionID, "--choice", "Friday", "--by", "val")
	require.Empty(t, c.ok("pact-questions", "--by", "val")["value"], "an answered decision waits no more")
	require.Len(t, c.ok("pact-questions", "--by", "val", "--include-answered")["value"], 1)
	c.refused("not_found", "pact-undo", "999999999", "--by", "val")
	c.refused("forbidden", "pact-undo", "999999999", "--by", "vic")
	c.refused("forbidden", "pact-close", pactID, "--by", "vic")
	require.Equal(t, true, c.ok("pact-close", pactID, "--by", "val")["ok"])
	var closed bool
	require.NoError(t, db.QueryRow(`SELECT closed_at IS NOT NULL FROM pacts WHERE id = $1`, pactID).Scan(&closed))
	require.True(t, closed)
	require.Contains(t, c.refused("forbidden", "pact-close", pactID, "--by", "val"), "is closed")

	// Notification destinations: no notifier plugin runs here, so adding
	// one is refused, and the list stays empty.
	require.Empty(t, c.ok("destination-list", "--by", "vic")["items"])
	require.Contains(t, c.refused("invalid_request", "destination-add", "webhook", "https://hooks.example.com/pact", "--by", "ana"),
		`no notifier plugin named "webhook"`)
	c.refused("forbidden", "destination-add", "webhook", "https://hooks.example.com/pact", "--by", "val")
	c.refused("not_found", "destination-disable", "1", "--by", "ana")
	c.refused("invalid_request", "destination-disable", "first", "--by", "ana")
	require.Empty(t, c.ok("destination-list", "--by", "vic")["items"])

	// The inbox: a task waiting for approval tells the owners and approvers;
	// ana reads and marks it, and a missing id is refused.
	_, err = outbox.Enqueue(ctx, a.db, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: "web", AgentID: "code-web",
		Title: "Deploy the site", Detail: "deploy.web"})
	require.NoError(t, err)
	counts := c.ok("notification-counts", "--by", "ana")
	require.Positive(t, counts["unread"], "the decision raised above reached ana's inbox")
	items := c.ok("notifications", "--by", "ana", "--filter", "unread")["items"].([]any)
	require.NotEmpty(t, items)
	first := fmt.Sprint(int64(items[0].(map[string]any)["id"].(float64)))
	require.Equal(t, true, c.ok("notification-read", first, "--by", "ana")["ok"])
	c.refused("not_found", "notification-read", "999999999", "--by", "ana")
	c.refused("invalid_request", "notification-read", "first", "--by", "val")
	c.ok("notifications-read", "--by", "ana")
	require.Zero(t, c.ok("notification-counts", "--by", "ana")["unread"])
	c.refused("invalid_request", "notifications", "--by", "val", "--filter", "starred")

	// Email choices: off until chosen, then exactly the kinds chosen.
	emailed := func(out map[string]any) (kinds []string) {
		for _, k := range out["kinds"].([]any) {
			if k.(map[string]any)["email"] == true {
				kinds = append(kinds, k.(map[string]any)["kind"].(string))
			}
		}
		return kinds
	}
	require.Empty(t, emailed(c.ok("email-choices", "--by", "ana")), "off until chosen")
	require.Equal(t, []string{"pact_unread"}, emailed(c.ok("email-choose", "--by", "ana", "--kinds", "pact_unread")))
	require.Equal(t, []string{"pact_unread"}, emailed(c.ok("email-choices", "--by", "ana")))
	require.Empty(t, emailed(c.ok("email-choices", "--by", "val")), "only ana's own")
	c.refused("invalid_request", "email-choose", "--by", "ana", "--kinds", "no_such_kind")
}
