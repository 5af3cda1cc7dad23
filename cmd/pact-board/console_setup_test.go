package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/modules/people"
)

// The console sets things up (issue 31, section 2; docs/console.md,
// "Setting up"): journeys in headless Chromium on a board started as
// pact-board runs, agents over MCP.

// TestConsoleProductionProjectRefusesRunners: the owner creates a project
// in the console and marks it production behind a confirmation saying what
// that does; until the confirmation a Runner works there, after it the
// Runner's pact_claim and pact_post there are refused.
func TestConsoleProductionProjectRefusesRunners(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ctx := context.Background()
	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/projects")
	p.Fill("Project id", "shop")
	p.Fill("Name", "Shop")
	p.Click("button", "Create project")
	p.ExpectText("Created project shop.")

	reg, err := registerAgent(ctx, c.d, c.ident, demoOwner, people.AgentInput{ID: "runner-shop", Client: "runner", Projects: []string{"shop"},
		Scope: []string{"task.read@project:shop", "task.post@project:shop", "task.work@project:shop"}})
	require.NoError(t, err)
	runner := connect(t, c.public, "runner-shop", reg.Token)
	root := reg.RootMandateID.String()
	task := runner.ok("pact_post", map[string]any{"project_id": "shop", "title": "Tidy the catalogue", "mandate_id": root})["task_id"].(string)

	p.Click("button", "Mark Shop production")
	p.ExpectText("Runners never work on a production project")
	// The dialog only asks: the Runner still works there.
	runner.ok("pact_post", map[string]any{"project_id": "shop", "title": "Still allowed", "mandate_id": root})
	p.ClickIn("dialog", "Runners never work", "button", "Mark production")
	p.ExpectText("Shop is in production: Runners are refused there.")

	refusal, refused := runner.call("pact_claim", map[string]any{"task_id": task, "mandate_id": root})
	require.True(t, refused, "a Runner's claim on a production project is refused: %v", refusal)
	require.Equal(t, "project_mismatch", refusal["error"])
	require.Contains(t, refusal["message"], "production")
	_, refused = runner.call("pact_post", map[string]any{"project_id": "shop", "title": "Refused", "mandate_id": root})
	require.True(t, refused, "and so is its post")
	c.requireAdminAPIOnly()
}

// TestConsoleHireShowsTheSetupCodeOnce: an approver hires a Runner with a
// limit and a term of her own; the console shows the setup code once, as
// the pact-connect command to copy, and the agent's root mandate carries
// the limit and the term. After a reload the code is gone from the page.
func TestConsoleHireShowsTheSetupCodeOnce(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ctx := context.Background()
	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/agents")
	p.ExpectText("Hire from a role")
	p.Select("Role", "runner")
	p.Select("Project", "web")
	p.Fill("Agent id (optional)", "runner-hired")
	p.Fill("Limit runs", "5")
	p.Fill("Mandate term in days (optional)", "3")
	p.Click("button", "Hire")
	p.ExpectText("Connect runner-hired")
	command := strings.TrimSpace(p.Text(".connect pre"))
	m := regexp.MustCompile(`^pact-connect (\S+) (\S+)$`).FindStringSubmatch(command)
	require.NotNil(t, m, "the console shows the pact-connect command: %q", command)
	require.Equal(t, c.public, m[1])
	code := m[2]

	var limits json.RawMessage
	var expires time.Time
	require.NoError(t, c.d.NewRaw(`SELECT limits, expires_at FROM mandates WHERE holder = 'runner-hired' AND parent_id IS NULL AND revoked_at IS NULL`).
		Scan(ctx, &limits, &expires))
	var got map[string]float64
	require.NoError(t, json.Unmarshal(limits, &got))
	require.Equal(t, 5.0, got["runs"], "the limit typed in the console")
	require.Equal(t, 2000.0, got["turns"], "the role's other limit stays")
	require.WithinDuration(t, time.Now().Add(3*24*time.Hour), expires, time.Hour, "the term typed in the console")

	// The code is shown once: not after a reload, and the board keeps only its hash.
	p.Goto(c.public + "/console/agents")
	p.ExpectText("Manage runner-hired")
	require.NotContains(t, p.Text("body"), code)
	var stored int
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM setup_codes WHERE agent_id = 'runner-hired' AND code_hash <> ?`, code).Scan(ctx, &stored))
	require.Equal(t, 1, stored)
	c.requireAdminAPIOnly()
}

// TestConsoleEditsATaskAndSetsLanguages: the owner edits an open task's
// title from its page (the agent then reads the new title), and sets the
// organization's language and her own from Settings; the board holds what
// she chose.
func TestConsoleEditsATaskAndSetsLanguages(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ctx := context.Background()
	task := c.post("Fix the header", "")
	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/tasks/" + task)
	p.ExpectText("Edit the title or text")
	p.TabTo("Edit the title or text", 80)
	p.Press("Enter")
	p.Fill("Title", "Fix the footer")
	p.Click("button", "Save task")
	p.ExpectText("Saved the task; the log keeps the old text.")
	var title string
	require.NoError(t, c.d.NewRaw(`SELECT title FROM tasks WHERE id = ?`, task).Scan(ctx, &title))
	require.Equal(t, "Fix the footer", title)
	// pact_list hands out changes below the server's transaction horizon
	// (docs/events.md, "The cursor"): on a busy server, moments after.
	require.Eventually(t, func() bool {
		listed, _ := json.Marshal(c.agent.ok("pact_list", map[string]any{"mandate_id": c.root, "filter": "all"}))
		return strings.Contains(string(listed), "Fix the footer")
	}, 5*time.Second, 50*time.Millisecond, "the agent reads the new title")

	p.Goto(c.public + "/console/settings")
	p.Select("The organization's language", "th")
	p.Click("button", "Save the organization's language")
	p.ExpectText("Saved the organization's language.")
	p.Select("Your language", "en")
	p.Click("button", "Save my language")
	p.ExpectText("Saved your language.")
	var org string
	var mine *string
	require.NoError(t, c.d.NewRaw(`SELECT o.language, h.language FROM humans h JOIN orgs o ON o.id = h.org_id WHERE h.id = ?`, demoOwner).
		Scan(ctx, &org, &mine))
	require.Equal(t, "th", org)
	require.NotNil(t, mine)
	require.Equal(t, "en", *mine)
	c.requireAdminAPIOnly()
}

// TestConsoleOwnerErasesANote: an agent writes a project note; the owner
// opens its versions in the console and erases the current one behind a
// confirmation saying it cannot be undone. Afterwards the text is gone from
// the page, from what the agent reads, from the note's versions and from
// every log payload that carried it; the erasure is logged as the Admin
// API logs it (admin.context.erase by the owner), and the chains still
// verify.
func TestConsoleOwnerErasesANote(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ctx := context.Background()
	const text = "Deploy from the blue runbook and ask Mina first."
	c.agent.ok("pact_note", map[string]any{"mandate_id": c.root, "project_id": "web", "key": "deploy", "title": "Deploy",
		"body": text})
	carried := func() (n int) {
		require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM payloads WHERE content::text LIKE '%ask Mina first%'`).Scan(ctx, &n))
		return n
	}
	require.NotZero(t, carried(), "the agent's write is logged with its text")

	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/projects/web")
	p.ExpectText("deploy · version 1 · by agent:code-web")
	p.Expand("Versions and editing of deploy")
	p.ExpectText(text)
	require.Equal(t, text, p.Value("Text of deploy"), "editing starts from the note's text")
	p.Click("button", "Erase version 1 of deploy")
	p.ExpectText("This cannot be undone.")
	// The dialog only asks: the agent still reads the text.
	read := c.agent.ok("pact_note", map[string]any{"mandate_id": c.root, "project_id": "web", "key": "deploy"})
	require.Equal(t, text, read["note"].(map[string]any)["body"])
	p.ClickIn("dialog", "This cannot be undone.", "button", "Erase")
	p.ExpectText("Erased version 1 of deploy.")
	require.Equal(t, "Erased", p.Text("ol.rows .badge"), "the version says it is erased")
	require.Equal(t, "[erased]", p.Value("Text of deploy"), "editing starts from the erased note, not its old text")
	require.NotContains(t, p.Text("body"), "ask Mina first", "the page no longer shows the text")
	require.NotContains(t, p.HTML(), "ask Mina first")
	require.NotContains(t, strings.Join(p.Values(), "\n"), "ask Mina first", "no field holds it")

	read = c.agent.ok("pact_note", map[string]any{"mandate_id": c.root, "project_id": "web", "key": "deploy"})
	require.Equal(t, "[erased]", read["note"].(map[string]any)["body"], "the agent reads the note erased")
	var versions []struct {
		Body   *string    `bun:"body"`
		Erased *time.Time `bun:"erased_at"`
	}
	require.NoError(t, c.d.NewRaw(`SELECT body, erased_at FROM context_note_versions WHERE project_id = 'web' AND key = 'deploy'`).
		Scan(ctx, &versions))
	require.Len(t, versions, 1)
	require.Nil(t, versions[0].Body, "the version holds no text")
	require.NotNil(t, versions[0].Erased)
	require.Zero(t, carried(), "no log payload carries the text any more")

	var logged []struct {
		Actor   string `bun:"actor"`
		Project string `bun:"project_id"`
		Outcome string `bun:"outcome"`
	}
	require.NoError(t, c.d.NewRaw(`SELECT actor, project_id, outcome FROM entries WHERE action = 'admin.context.erase'`).Scan(ctx, &logged))
	require.Len(t, logged, 1, "the erasure is logged once")
	require.Equal(t, "human:"+demoOwner, logged[0].Actor)
	require.Equal(t, "web", logged[0].Project)
	require.Equal(t, "ok", logged[0].Outcome)
	chains, err := ledger.New(nil).VerifyAll(ctx, c.d, nil)
	require.NoError(t, err)
	for _, org := range chains {
		for _, v := range org {
			require.True(t, v.OK, "%s: %s", v.ChainKey, v.Reason)
		}
	}
	c.requireAdminAPIOnly()
}

// TestConsoleRoleSecretIsShownOnlyAsSet: the owner saves the Runner role's
// runner settings in the console, one of them a secret (a GitHub token).
// From then on the page shows the secret only as set — not in its text,
// its HTML or any field, after the save nor after a reload — while the
// other settings show their values; the board stores it sealed, and the
// runner hired from the role gets it in clear when it redeems its setup
// code. Saved again with its field left blank, the role keeps it.
func TestConsoleRoleSecretIsShownOnlyAsSet(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ctx := context.Background()
	const secret = "ghp_consoleRoleSecret42"
	const settingsLabel = "Settings, one NAME=value a line ({project} is filled in; a secret one is kept sealed)"
	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/roles")
	p.Expand("Edit Runner")
	settings := p.Value(settingsLabel)
	require.Contains(t, settings, "PACT_RUNNER_MAX_TURNS=40", "the runner settings are edited as they are")
	p.Fill(settingsLabel, strings.Replace(settings, "PACT_RUNNER_MAX_TURNS=40", "PACT_RUNNER_MAX_TURNS=60", 1)+
		"\nPACT_RUNNER_GITHUB_TOKEN="+secret)
	p.Click("button", "Save role Runner")
	p.ExpectText("Saved role Runner.")
	p.ExpectText("PACT_RUNNER_GITHUB_TOKEN set")
	p.ExpectText("PACT_RUNNER_MAX_TURNS 60")
	shownOnlyAsSet := func(when string) {
		t.Helper()
		require.NotContains(t, p.Text("body"), secret, "the page's text %s", when)
		require.NotContains(t, p.HTML(), secret, "the page's HTML %s", when)
		require.NotContains(t, strings.Join(p.Values(), "\n"), secret, "the page's fields %s", when)
	}
	shownOnlyAsSet("after the save")
	p.Goto(c.public + "/console/roles")
	p.ExpectText("PACT_RUNNER_GITHUB_TOKEN set")
	p.Expand("Edit Runner")
	require.Empty(t, p.Value("PACT_RUNNER_GITHUB_TOKEN (set): a new value, or blank to keep it"))
	shownOnlyAsSet("after a reload")

	var raw string
	require.NoError(t, c.d.NewRaw(`SELECT settings::text FROM agent_roles WHERE id = 'runner'`).Scan(ctx, &raw))
	var stored map[string]string
	require.NoError(t, json.Unmarshal([]byte(raw), &stored))
	require.True(t, strings.HasPrefix(stored["PACT_RUNNER_GITHUB_TOKEN"], "sealed:"), "stored sealed: %q", stored["PACT_RUNNER_GITHUB_TOKEN"])
	require.Equal(t, "60", stored["PACT_RUNNER_MAX_TURNS"])
	got := c.hireAndRedeem(p, "runner-one")
	require.Equal(t, secret, got["PACT_RUNNER_GITHUB_TOKEN"], "the hired runner gets the secret in clear")
	require.Equal(t, "60", got["PACT_RUNNER_MAX_TURNS"])

	// Saved again with the secret's field blank: the role keeps it.
	p.Goto(c.public + "/console/roles")
	p.Expand("Edit Runner")
	p.Fill(settingsLabel, strings.Replace(p.Value(settingsLabel), "PACT_RUNNER_MAX_TURNS=60", "PACT_RUNNER_MAX_TURNS=70", 1))
	p.Click("button", "Save role Runner")
	p.ExpectText("Saved role Runner.")
	p.ExpectText("PACT_RUNNER_MAX_TURNS 70")
	shownOnlyAsSet("after a save that keeps it")
	got = c.hireAndRedeem(p, "runner-two")
	require.Equal(t, secret, got["PACT_RUNNER_GITHUB_TOKEN"], "a save with the field blank keeps the secret")
	require.Equal(t, "70", got["PACT_RUNNER_MAX_TURNS"])
	c.requireAdminAPIOnly()
}

// hireAndRedeem hires agent from the Runner role into web in the console's
// Agents page, redeems the setup code it shows as pact-connect does (POST
// /connect) and returns the settings the board handed the agent.
func (c *consoleBoard) hireAndRedeem(p *browsertest.Page, agent string) map[string]string {
	c.t.Helper()
	p.Goto(c.public + "/console/agents")
	p.ExpectText("Hire from a role")
	p.Select("Role", "runner")
	p.Select("Project", "web")
	p.Fill("Agent id (optional)", agent)
	p.Click("button", "Hire")
	p.ExpectText("Connect " + agent)
	m := regexp.MustCompile(`^pact-connect \S+ (\S+)$`).FindStringSubmatch(strings.TrimSpace(p.Text(".connect pre")))
	require.NotNil(c.t, m, "the console shows the pact-connect command")
	resp, err := http.Post(c.public+"/connect", "application/json", strings.NewReader(`{"code": "`+m[1]+`"}`))
	require.NoError(c.t, err)
	defer resp.Body.Close()
	require.Equal(c.t, http.StatusOK, resp.StatusCode)
	var connected struct {
		AgentID  string            `json:"agent_id"`
		Settings map[string]string `json:"settings"`
	}
	require.NoError(c.t, json.NewDecoder(resp.Body).Decode(&connected))
	require.Equal(c.t, agent, connected.AgentID)
	return connected.Settings
}

// TestConsoleChangesAnAgentsRoleAndProjects: the owner moves code-web, an
// agent of web with no role, to another role of its client (Reviewer,
// which may not work tasks) and from web to shop, behind a confirmation
// saying what that does. Until the confirmation the agent works as before;
// after it the board holds the new role and projects, the agent's old root
// mandate is revoked, and its new root works in shop under the role's
// actions only: it posts in shop, is refused in web, and may not claim.
func TestConsoleChangesAnAgentsRoleAndProjects(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ctx := context.Background()
	_, err := c.ident.AddProject(ctx, demoOwner, "shop", "Shop", false)
	require.NoError(t, err)
	_, err = c.d.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, client, actions)
		SELECT org_id, 'reviewer', 'Reviewer', 'code', '{task.read,task.post}' FROM humans WHERE id = ?`, demoOwner)
	require.NoError(t, err)

	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/agents")
	p.ExpectText("projects web")
	p.Expand("Manage code-web")
	p.Select("Role of code-web", "reviewer")
	p.Click("checkbox", "Shop")
	p.Click("checkbox", "Web")
	p.Click("button", "Change code-web's role or projects")
	p.ExpectText("code-web gets a new root mandate from reviewer over shop, and every root mandate it held before is revoked")
	// The dialog only asks: the agent still works under its root in web.
	c.agent.ok("pact_list", map[string]any{"mandate_id": c.root, "project_id": "web"})
	p.ClickIn("dialog", "every root mandate it held before is revoked", "button", "Change")
	p.ExpectText("code-web now works as reviewer on shop.")
	p.ExpectText("hired as reviewer")
	p.ExpectText("projects shop")

	var role string
	var projects []string
	require.NoError(t, c.d.NewRaw(`SELECT a.role_id, array_agg(p.project_id ORDER BY p.project_id) FROM agents a
		JOIN agent_projects p ON p.agent_id = a.id WHERE a.id = 'code-web' GROUP BY a.role_id`).Scan(ctx, &role, pgdialect.Array(&projects)))
	require.Equal(t, "reviewer", role)
	require.Equal(t, []string{"shop"}, projects)

	refusal, refused := c.agent.call("pact_list", map[string]any{"mandate_id": c.root})
	require.True(t, refused, "the old root authorizes nothing")
	require.Equal(t, "mandate_revoked", refusal["error"])
	var root string
	var scope []string
	require.NoError(t, c.d.NewRaw(`SELECT id, scope FROM mandates WHERE holder = 'code-web' AND parent_id IS NULL AND revoked_at IS NULL`).
		Scan(ctx, &root, pgdialect.Array(&scope)))
	require.ElementsMatch(t, []string{"task.read@project:shop", "task.post@project:shop"}, scope, "the new root is the role's, over shop")
	task := c.agent.ok("pact_post", map[string]any{"project_id": "shop", "title": "Review the cart", "mandate_id": root})["task_id"].(string)
	refusal, refused = c.agent.call("pact_post", map[string]any{"project_id": "web", "title": "Not here", "mandate_id": root})
	require.True(t, refused, "the agent left web")
	require.Equal(t, "project_mismatch", refusal["error"])
	refusal, refused = c.agent.call("pact_claim", map[string]any{"task_id": task, "mandate_id": root})
	require.True(t, refused, "a Reviewer does not work tasks")
	require.Equal(t, "scope_exceeded", refusal["error"], "%v", refusal)

	var logged []struct {
		Actor   string `bun:"actor"`
		Outcome string `bun:"outcome"`
	}
	require.NoError(t, c.d.NewRaw(`SELECT actor, outcome FROM entries WHERE action = 'admin.agent.update' AND agent_id = 'code-web'`).
		Scan(ctx, &logged))
	require.Len(t, logged, 1, "the change is logged once")
	require.Equal(t, "human:"+demoOwner, logged[0].Actor)
	require.Equal(t, "ok", logged[0].Outcome)
	c.requireAdminAPIOnly()
}
