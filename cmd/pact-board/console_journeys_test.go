package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/people"
)

// The console's journeys (issue #15, docs/console-testing.md): a real
// board started as pact-board runs, its people signing in through the real
// auth-oidc plugin and oidc-provider, in a headless Chromium; agents over
// MCP. Run with -update to rewrite the screenshots in docs/console/.

var (
	ana = browsertest.User{Email: "ana@example.com", Password: "ana's password", AMR: []string{"pwd", "mfa"}}
	bob = browsertest.User{Email: "bob@example.com", Password: "bob's password", AMR: []string{"pwd", "mfa"}}
	// cy has an account at the provider and no person on the board until
	// an invitation is accepted.
	cy = browsertest.User{Email: "cy@example.com", Password: "cy's password", AMR: []string{"pwd", "mfa"}}
)

// consoleBoard is a board serving the console, with Ana (approver) and Bob
// (viewer) bound to the provider's accounts and one agent, code-web.
type consoleBoard struct {
	t       *testing.T
	public  string // PACT_PUBLIC_URL, where the board listens
	d       *db.DB
	op      *browsertest.Provider
	browser *browsertest.Browser
	out     *logtest.Buffer // what pact-board printed
	agent   *agentClient
	root    string // code-web's root mandate
	ident   *identity.Service
	pages   []*browsertest.Page
}

func startConsoleBoard(t *testing.T) *consoleBoard {
	t.Helper()
	return startConsoleBoardWith(t, nil)
}

// startConsoleBoardWith is startConsoleBoard with pact-board's environment
// changed by setup first (more plugins in PACT_PLUGINS, say); nil changes
// nothing. Each of mains then changes the Main before it runs (the
// manifest of bundled plugins, say).
func startConsoleBoardWith(t *testing.T, setup func(vars map[string]string), mains ...func(*Main)) *consoleBoard {
	t.Helper()
	ctx := context.Background()
	// The redirect URI the provider accepts is <PACT_PUBLIC_URL>/console/auth/callback,
	// so the board listens where its public URL says.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	public := fmt.Sprintf("http://127.0.0.1:%d", port)

	op := browsertest.StartProvider(t, browsertest.ProviderConfig{ClientID: "pact-console", ClientSecret: "console secret",
		RedirectURIs: []string{public + "/console/auth/callback"}, Audience: public + "/admin", Users: []browsertest.User{ana, bob, cy}})
	vars := oidcBoardVars(t, op.Issuer)
	for k, v := range map[string]string{"PORT": fmt.Sprint(port), "PACT_PUBLIC_URL": public,
		"PACT_AUTH_ISSUER": op.Issuer, "PACT_CONSOLE_CLIENT_ID": "pact-console", "PACT_CONSOLE_CLIENT_SECRET": "console secret",
		"PACT_CONSOLE_LOCAL_SIGNIN": "on"} {
		vars[k] = v
	}
	if setup != nil {
		setup(vars)
	}
	out := &logtest.Buffer{}
	// As `pact-board --demo` starts: the first owner, then the console link.
	startMainWith(t, vars, func(m *Main) {
		m.Demo, m.Out = true, out
		for _, f := range mains {
			f(m)
		}
	})

	d, err := db.Open(ctx, vars["DATABASE_URL"])
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	for _, h := range []struct {
		id, name string
		role     identity.Role
		user     browsertest.User
	}{{"ana", "Ana Approver", identity.Approver, ana}, {"bob", "Bob Viewer", identity.Viewer, bob}} {
		_, err := ident.AddHuman(ctx, demoOwner, identity.HumanInput{ID: h.id, Name: h.name, Role: h.role, Email: h.user.Email})
		require.NoError(t, err)
		// The invitation accepted for the provider's account (its sub is the email).
		p, err := ident.AcceptInvitation(ctx, d, h.id, h.user.Email, op.Issuer, h.user.Email)
		require.NoError(t, err)
		require.NotNil(t, p)
	}
	_, err = ident.AddProject(ctx, demoOwner, "web", "Web", false)
	require.NoError(t, err)
	reg, err := registerAgent(ctx, d, ident, demoOwner, people.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"},
		Scope: []string{"task.read@project:web", "task.post@project:web", "task.work@project:web", "deploy.web@project:web",
			"context.write@project:web", "pact.read@project:web", "pact.write@project:web"}})
	require.NoError(t, err)
	return &consoleBoard{t: t, public: public, d: d, op: op, browser: browsertest.Start(t), out: out,
		agent: connect(t, public, "code-web", reg.Token), root: reg.RootMandateID.String(), ident: ident}
}

// page opens a tab of its own (its own cookies) whose requests are checked
// against the Admin API when the test ends.
func (c *consoleBoard) page(width, height int) *browsertest.Page {
	p := c.browser.Page(width, height)
	c.pages = append(c.pages, p)
	return p
}

// signIn signs user in to the console the way a person does: the console's
// Sign in link, the provider's form, back to the console showing them.
func (c *consoleBoard) signIn(user browsertest.User, name string) *browsertest.Page {
	c.t.Helper()
	p := c.signInAccount(user)
	p.ExpectText(name)
	p.ExpectText("Needs you")
	return p
}

// signInAccount opens a tab and signs user in through the OpenID
// provider, back on the console, whether or not the account is a person
// of the board yet.
func (c *consoleBoard) signInAccount(user browsertest.User) *browsertest.Page {
	c.t.Helper()
	p := c.page(1280, 800)
	require.Equal(c.t, http.StatusOK, p.Goto(c.public+"/console/"))
	p.Click("link", "Sign in")
	p.WaitURL(c.op.Issuer)
	p.Fill("Email", user.Email)
	p.Fill("Password", user.Password)
	p.Click("button", "Sign in")
	p.WaitURL(c.public + "/console/")
	return p
}

// post has code-web post a task and returns its id.
func (c *consoleBoard) post(title, action string) string {
	c.t.Helper()
	args := map[string]any{"project_id": "web", "title": title, "mandate_id": c.root}
	if action != "" {
		args["action"] = action
	}
	return c.agent.ok("pact_post", args)["task_id"].(string)
}

// TestConsoleApprovalLetsTheAgentClaim: a person signs in through the
// OpenID provider, sees in Needs you a task an agent posted over MCP that
// needs approval, approves it, and the agent's pact_claim then succeeds.
func TestConsoleApprovalLetsTheAgentClaim(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	task := c.post("Ship the release", "deploy.web")
	refusal, refused := c.agent.call("pact_claim", map[string]any{"task_id": task, "mandate_id": c.root})
	require.True(t, refused)
	require.Equal(t, "approval_pending", refusal["error"])

	p := c.signIn(ana, "Ana Approver")
	p.ExpectText("Ship the release")
	p.Click("button", "Approve")
	p.ExpectText("Approved “Ship the release”.")
	p.ExpectText("Nothing is waiting on you.")

	claim := c.agent.ok("pact_claim", map[string]any{"task_id": task, "mandate_id": c.root})
	require.Equal(t, "working", claim["status"])
	c.requireAdminAPIOnly()
}

// TestConsoleAnswerReachesTheAgent: a person answers a deferred task's
// question in Needs you; the agent's held pact_wait on the task returns the
// answer word for word, and pact_events then offers the task with it.
func TestConsoleAnswerReachesTheAgent(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	task := c.post("Pick the region", "")
	c.agent.ok("pact_defer", map[string]any{"task_id": task, "mandate_id": c.root,
		"reason": "Which region should the database live in?"})
	since := c.agent.ok("pact_events", map[string]any{"mandate_id": c.root, "seconds": 0})["next_since"]

	p := c.signIn(ana, "Ana Approver")
	p.ExpectText("Which region should the database live in?")

	// The agent waits for the answer while the person writes it.
	type result struct {
		text string
		err  error
	}
	held := make(chan result, 1)
	go func() {
		res, err := c.agent.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pact_wait",
			Arguments: map[string]any{"mandate_id": c.root, "task_id": task, "seconds": 30}})
		if err != nil {
			held <- result{err: err}
			return
		}
		held <- result{text: res.Content[0].(*mcp.TextContent).Text}
	}()

	const answer = "Frankfurt (eu-central-1) — «not» São Paulo; keep 東京 as the 2nd replica ✓"
	p.Fill("Your answer", answer)
	p.Click("button", "Answer and resume")
	p.ExpectText("Put “Pick the region” back on the board.")

	var got result
	select {
	case got = <-held:
	case <-time.After(40 * time.Second):
		t.Fatal("pact_wait did not return after the answer")
	}
	require.NoError(t, got.err)
	var wait struct {
		Messages []struct {
			Body string `json:"body"`
			From string `json:"from"`
		} `json:"messages"`
		TimedOut bool `json:"timed_out"`
	}
	require.NoError(t, json.Unmarshal([]byte(got.text), &wait), got.text)
	require.False(t, wait.TimedOut, "the answer woke the agent: %s", got.text)
	require.Len(t, wait.Messages, 1, got.text)
	require.Equal(t, answer, wait.Messages[0].Body, "word for word")
	require.Equal(t, "human:ana", wait.Messages[0].From)

	// Waited for, as an agent does: the cursor hands out a change only
	// once every older transaction in the cluster has ended (horizonSQL,
	// modules/board/store_cursor.go), and parallel tests share the cluster.
	events := c.agent.ok("pact_events", map[string]any{"mandate_id": c.root, "since": since, "seconds": 20})
	tasks, _ := events["tasks"].([]any)
	require.Len(t, tasks, 1, "%v", events)
	require.Equal(t, task, tasks[0].(map[string]any)["id"])
	require.Equal(t, answer, tasks[0].(map[string]any)["answer"])
	c.requireAdminAPIOnly()
}

// pactBoard gives every page something to show: a task waiting for
// approval, a deferred one and a pact. It returns the approval task's id
// and the pact's id.
func (c *consoleBoard) fill() (task, pact string) {
	c.t.Helper()
	task = c.post("Ship the release", "deploy.web")
	deferred := c.post("Pick the region", "")
	c.agent.ok("pact_defer", map[string]any{"task_id": deferred, "mandate_id": c.root,
		"reason": "Which region should the database live in?"})
	c.agent.ok("pact_note", map[string]any{"mandate_id": c.root, "project_id": "web", "key": "guide", "title": "House style",
		"body": "Short sentences."})
	pact = c.agent.ok("create_pact", map[string]any{"mandate_id": c.root, "project_id": "web", "name": "Launch",
		"purpose": "Ship the web release together.", "prefix": "CW"})["pact_id"].(string)
	return task, pact
}

// consolePages are every page the console has, signed in.
func consolePages(task, pact string) []struct{ name, path, heading string } {
	return []struct{ name, path, heading string }{
		{"needs-you", "/console/", "Needs you"},
		{"overview", "/console/overview", "Tasks per day"},
		{"tasks", "/console/tasks", "Tasks"},
		{"task", "/console/tasks/" + task, "Ship the release"},
		{"pacts", "/console/pacts", "Pacts"},
		{"pact", "/console/pacts/" + pact, "Launch"},
		{"mandates", "/console/mandates", "Mandates"},
		{"credentials", "/console/credentials", "Trusted roots"},
		{"agents", "/console/agents", "Agents"},
		{"projects", "/console/projects", "Projects"},
		{"project", "/console/projects/web", "Notes of web"},
		{"roles", "/console/roles", "Roles"},
		{"log", "/console/log", "Log"},
		{"settings", "/console/settings", "Settings"},
		{"notifications", "/console/notifications", "Notifications"},
	}
}

// requireEveryRouteChecked derives the console's pages from its router
// (the <Route path=…> of modules/console/web/src/main.tsx) and requires
// consolePages to visit each, so a new page cannot escape the checks.
func requireEveryRouteChecked(t *testing.T) {
	t.Helper()
	src := string(mustRead(t, filepath.Join("..", "..", "modules", "console", "web", "src", "main.tsx")))
	routes := regexp.MustCompile(`<Route path="([^"]+)"`).FindAllStringSubmatch(src, -1)
	require.NotEmpty(t, routes, "main.tsx has its routes")
	for _, r := range routes {
		pattern := "^" + regexp.MustCompile(`:[a-z]+`).ReplaceAllString(regexp.QuoteMeta(r[1]), `[^/]+`) + "/?$"
		visited := false
		for _, pg := range consolePages("t", "p") {
			visited = visited || regexp.MustCompile(pattern).MatchString(pg.path)
		}
		require.True(t, visited, "the console's route %s is in no check: add it to consolePages", r[1])
	}
}

// writeControls are the buttons that change something; a viewer may see
// none of them.
var writeControls = regexp.MustCompile(`^(Approve|Reject|Answer and resume|Not needed|Send answer|Send message|Assign|Release|` +
	`Cancel task|Close pact|Pause|Pause .*|Wake .*|Change answer|Keep my answer|Revoke.*|Hire|Reactivate|Ban|Undo the ban|` +
	`Renew.*|Issue.*|Replace.*|Import.*|Add key|Save preferences|Save limit|Save webhook|Remove webhook|Invite|Add rule|Halt every agent|` +
	`Lift the halt|Disable|Erase.*|Add destination|New pact|Start the pact|Remove .*|Post|Save zone|Save handshake|Join|Wake it.*|` +
	`Create project|Mark .* production|Take .* out of production|Freeze .*|` +
	`Unfreeze .*|Pin .*|Unpin .*|Archive .*|Save note.*|Save role.*|Save task|Change .*'s role or projects|` +
	`Save the organization's language)$`)

// filterPages are the pages whose text fields only filter what is shown,
// which a viewer may use.
var filterPages = map[string]bool{"log": true}

// TestConsoleViewerSeesNoWriteControls: on every page (consolePages) a
// viewer sees no button that writes and, but for the log's filters, no
// field to type in, where an approver sees them.
func TestConsoleViewerSeesNoWriteControls(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	task, pact := c.fill()
	approver := c.signIn(ana, "Ana Approver")
	viewer := c.signIn(bob, "Bob Viewer")
	seen := map[string]bool{}
	for _, pg := range consolePages(task, pact) {
		approver.Goto(c.public + pg.path)
		approver.ExpectText(pg.heading)
		viewer.Goto(c.public + pg.path)
		viewer.ExpectText(pg.heading)
		if pg.name == "needs-you" {
			approver.ExpectText("Ship the release")
			viewer.ExpectText("Ship the release")
			viewer.ExpectText("An approver answers this.")
		}
		if pg.name == "pact" {
			approver.ExpectText("Close pact")
		}
		for _, b := range approver.Texts("button") {
			if writeControls.MatchString(b) {
				seen[b] = true
			}
		}
		buttons := viewer.Texts("button")
		require.NotContains(t, buttons, "", "every button has a name")
		for _, b := range buttons {
			require.False(t, writeControls.MatchString(b), "a viewer sees %q on %s", b, pg.path)
		}
		if !filterPages[pg.name] {
			require.Empty(t, viewer.Texts("textbox"), "a viewer has nothing to type in on %s", pg.path)
		}
	}
	// The approver saw the controls the viewer did not: the check can fail.
	for _, b := range []string{"Approve", "Reject", "Answer and resume", "Cancel task", "Close pact", "Pause @code-web",
		"Revoke…", "Replace…", "Issue a root mandate…", "Import credential", "Hire", "Pin guide", "Archive guide", "Archive Runner"} {
		require.True(t, seen[b], "an approver sees %q somewhere (saw %v)", b, seen)
	}
	c.requireAdminAPIOnly()
}

// TestConsoleLocalLinkWorksOnce: the link pact-board prints signs its
// owner in once; a second visit, in another browser, is refused and sets
// no session.
func TestConsoleLocalLinkWorksOnce(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	link := c.localLink()

	first := c.page(1280, 800)
	require.Equal(t, http.StatusOK, first.Goto(link))
	require.Equal(t, c.public+"/console/", first.URL())
	first.ExpectText("Board owner")
	first.ExpectText("Needs you")
	require.True(t, hasSession(first), "the first visit sets the session")

	second := c.page(1280, 800)
	require.Equal(t, http.StatusUnauthorized, second.Goto(link))
	require.False(t, hasSession(second), "a second visit sets no session")
	second.Goto(c.public + "/console/")
	second.ExpectText("Sign in to see what needs you.")

	// Not even the browser that used it gets in again with it.
	again := c.page(1280, 800)
	require.Equal(t, http.StatusUnauthorized, again.Goto(link))
	require.False(t, hasSession(again))
	c.requireAdminAPIOnly()
}

// localLink is the one-time console link pact-board printed.
func (c *consoleBoard) localLink() string {
	c.t.Helper()
	printed := regexp.MustCompile(`Console: (` + regexp.QuoteMeta(c.public) + `/console/auth/local\?code=[A-Za-z0-9_-]+)\n`)
	var link string
	require.Eventually(c.t, func() bool {
		m := printed.FindStringSubmatch(c.out.String())
		if m != nil {
			link = m[1]
		}
		return m != nil
	}, 10*time.Second, 20*time.Millisecond, "pact-board prints the console link: %s", c.out)
	return link
}

// TestConsoleRevokesAMandateAfterItsImpact: a person reads what revoking
// an agent's mandate would stop, revokes it, and the agent's next call
// under it is refused.
func TestConsoleRevokesAMandateAfterItsImpact(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	c.post("Write the notes", "")
	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/mandates")
	p.ExpectText("code-web")
	p.ClickIn("article", "code-web", "button", "Revoke…")
	p.ExpectText("If you revoke this mandate")
	p.ExpectText("1 open task")
	c.agent.ok("pact_list", map[string]any{"mandate_id": c.root}) // the preview changed nothing
	p.Click("button", "Revoke mandate")
	p.ExpectText("This cannot be undone.")
	p.ClickIn("dialog", "This cannot be undone.", "button", "Revoke")
	p.ExpectText("Revoked code-web's mandate")
	refusal, refused := c.agent.call("pact_list", map[string]any{"mandate_id": c.root})
	require.True(t, refused, "the revoked mandate authorizes nothing")
	require.Equal(t, "mandate_revoked", refusal["error"])
	c.requireAdminAPIOnly()
}

// TestConsoleKillSwitchStopsAndRestoresAgents: the owner (signed in with
// the local link) halts every agent behind a confirmation naming the
// effect; the agent's call is refused until the halt is lifted.
func TestConsoleKillSwitchStopsAndRestoresAgents(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	p := c.page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(c.localLink()))
	p.Goto(c.public + "/console/settings")
	p.ExpectText("Agents are working normally.")
	p.Click("button", "Halt every agent")
	p.ExpectText("Every agent call of the organization is refused until you lift it.")
	c.agent.ok("pact_list", map[string]any{"mandate_id": c.root}) // not yet: the dialog only asks
	p.ClickIn("dialog", "refused until you lift it", "button", "Halt every agent")
	require.Eventually(t, func() bool {
		refusal, refused := c.agent.call("pact_list", map[string]any{"mandate_id": c.root})
		return refused && refusal["error"] == "system_halted"
	}, 10*time.Second, 50*time.Millisecond, "the halt stops the agent's calls")
	p.Click("button", "Lift the halt")
	p.ClickIn("dialog", "may call the board again", "button", "Lift the halt")
	p.ExpectText("Agents are working normally.")
	c.agent.ok("pact_list", map[string]any{"mandate_id": c.root})
	c.requireAdminAPIOnly()
}

func hasSession(p *browsertest.Page) bool {
	for _, k := range p.Cookies() {
		if k.Name == "pact_console" {
			return true
		}
	}
	return false
}
