package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/modules/people"
)

// CONSOLE-014: every write control of the console is shown only to the
// roles the Admin API allows. Its population is the code's: each control
// that calls an Admin API write is marked with the operation
// (modules/console/web TestEveryWriteCallIsMarked fails on a write call no
// mark names), and this journey reads the marks.

// adminOp is an operation of docs/openapi.json.
type adminOp struct {
	role   string // x-pact-least-role
	method string
	path   string
}

// own tells whether the operation acts on the calling person's own things
// (/admin/api/me and under: their settings, language and notifications),
// which a viewer may change.
func (o adminOp) own() bool {
	return o.path == "/admin/api/me" || strings.HasPrefix(o.path, "/admin/api/me/")
}

// adminOps reads every operation of docs/openapi.json by its operationId.
func adminOps(t *testing.T) map[string]adminOp {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			ID   string `json:"operationId"`
			Role string `json:"x-pact-least-role"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join("..", "..", "docs", "openapi.json")), &doc))
	ops := map[string]adminOp{}
	for path, methods := range doc.Paths {
		for method, op := range methods {
			ops[op.ID] = adminOp{role: op.Role, method: strings.ToUpper(method), path: path}
		}
	}
	return ops
}

var (
	// opMark is a control's mark in the console's source: data-op="…", op="…"
	// on a ConfirmButton, or either with an expression whose string
	// literals are the operations it may name.
	opMark   = regexp.MustCompile(`\b(?:data-op|op)=(?:"([^"]*)"|\{([^}]*)\})`)
	opInMark = regexp.MustCompile(`"([^"]*)"`)
	// shownOp is a mark as the browser serializes the page.
	shownOp = regexp.MustCompile(`\bdata-op="([^"]*)"`)
)

// markedOps reads the console's source (every .tsx under
// modules/console/web/src) for the operation of each write control.
func markedOps(t *testing.T) map[string]bool {
	t.Helper()
	ops := map[string]bool{}
	err := filepath.WalkDir(filepath.Join("..", "..", "modules", "console", "web", "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tsx") {
			return err
		}
		for _, m := range opMark.FindAllStringSubmatch(string(mustRead(t, p)), -1) {
			if m[1] != "" {
				ops[m[1]] = true
			}
			for _, lit := range opInMark.FindAllStringSubmatch(m[2], -1) {
				ops[lit[1]] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, ops)
	return ops
}

// notOnTheRoutes are the marked operations no person is shown on the
// router's pages, each with the reason and where a journey shows it: the
// one place the role journey below leaves an operation out.
var notOnTheRoutes = map[string]string{
	"people-accept-invitation": "an account that is no person yet accepts its invitation on the Welcome page, which stands " +
		"outside the router (main.tsx's account boot); TestConsoleAcceptsAnInvitation",
	"people-signup": "an account that is no person yet starts an organization on the Welcome page, outside the router, " +
		"and only while sign-up is on; TestConsoleSignsUpWhenSignupIsOn",
}

// roleRank orders the roles as the Admin API's gate does.
func roleRank(role string) int {
	switch role {
	case "viewer":
		return 0
	case "approver":
		return 1
	case "owner":
		return 2
	}
	return -1 // account
}

// unfold opens, as a person does, the folds of page where write controls
// wait (the summaries differ by what role may do there), and waits for
// what each shows once open: a fold renders its content on its toggle
// event, after the click.
func unfold(p *browsertest.Page, role, page string) {
	switch page {
	case "agents":
		p.Expand("Manage code-web")
		p.Expand("Manage runner-one")
		p.Expand("Manage remote-web")
		p.ExpectText("added by owner") // code-web's key
		p.ExpectText("No keys.")       // runner-one's
		if role != "viewer" {
			p.ExpectText("Change code-web's role or projects")
			p.ExpectText("Renew from its role")
			p.ExpectText("Save remote-web's card")
		}
	case "project":
		if role == "viewer" {
			p.Expand("Versions of guide")
		} else {
			p.Expand("Versions and editing of guide")
			p.ExpectText("Save note guide")
		}
		p.ExpectText("Version 1 by")
	case "task", "held task":
		if role != "viewer" {
			p.Expand("Edit the title or text")
			p.ExpectText("Save task")
		}
	case "roles":
		if role != "viewer" {
			p.Expand("New role")
			p.ExpectText("Role id")
		}
	}
}

// TestConsoleWriteControlsFollowTheRoles: on every page of the console's
// router (consolePages, checked against main.tsx), with the folds where
// controls wait opened, each person is shown the write controls their role
// allows and none above it, by the operation each control is marked with
// (markedOps, read from the source):
//   - Ana (approver, with a seat of her own, one waiting, and an answer the
//     agent has not read) is shown only operations whose least role is
//     approver or below, and each of them somewhere;
//   - the owner is shown each owner-level operation somewhere;
//   - Bob (viewer, no seat, no agent) is given, even hidden in the page's
//     HTML, only controls of viewer operations on his own things
//     (/admin/api/me…), and is shown his own settings among them; and
//     nothing to type in but the log's filters.
//
// The states the controls need are made first: a task waiting for
// approval, one deferred, one answered, one held by an agent; a pact
// decision; a hired agent, a remote A2A agent, an agent key, a trusted
// root, a destination and a pinned note.
func TestConsoleWriteControlsFollowTheRoles(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	requireEveryRouteChecked(t)
	ops, marked := adminOps(t), markedOps(t)
	for op := range marked {
		require.Contains(t, ops, op, "the mark %q is an operation of docs/openapi.json", op)
		require.NotEqual(t, "GET", ops[op].method, "the mark %q is a write", op)
	}
	for op, why := range notOnTheRoutes {
		require.True(t, marked[op], "notOnTheRoutes names %s, which no control is marked with", op)
		require.NotEmpty(t, why)
	}

	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(rcv.Close)
	c := startConsoleBoardWith(t, withWebhookPlugin(t))
	api, apiRoot := c.secondAgent()
	// A remote A2A agent, whose Manage names its card.
	_, err := registerAgent(context.Background(), c.d, c.ident, demoOwner, people.AgentInput{ID: "remote-web", Client: "a2a-remote",
		Projects: []string{"web"}})
	require.NoError(t, err)
	task, launch := c.fill()
	// What the agent leaves for people: a question in Launch, a task it
	// holds (Release) and a second note (pinned below: Unpin).
	c.agent.ok("raise_pact_decision", map[string]any{"mandate_id": c.root, "pact_id": launch, "question": "Which layout first?",
		"options": []string{"Grid", "List"}})
	held := c.post("Write the notes", "")
	require.Equal(t, "working", c.agent.ok("pact_claim", map[string]any{"task_id": held, "mandate_id": c.root})["status"])
	c.agent.ok("pact_note", map[string]any{"mandate_id": c.root, "project_id": "web", "key": "style", "title": "Style",
		"body": "Plain words."})

	// The owner seats Ana in Launch, so a seat waits for her (Join); hires
	// runner-one from its role (Renew); gives code-web a key (Revoke key),
	// trusts a root (Revoke key), adds a destination (Disable) and pins a
	// note (Unpin).
	owner := c.page(1280, 800)
	owner.Goto(c.localLink())
	owner.Goto(c.public + "/console/pacts/" + launch)
	owner.Select("Whom to invite", "Person Ana Approver")
	owner.Fill("Their prefix", "AA")
	owner.Click("button", "Invite")
	owner.ExpectText("Invited ana as AA.")
	owner.Goto(c.public + "/console/agents")
	owner.ExpectText("Hire from a role")
	owner.Select("Role", "runner")
	owner.Select("Project", "web")
	owner.Fill("Agent id (optional)", "runner-one")
	owner.Click("button", "Hire")
	owner.ExpectText("Connect runner-one")
	owner.Expand("Manage code-web")
	owner.Fill("Ed25519 public key (base64url)", newPublicKey(t))
	owner.Click("button", "Add key")
	owner.ExpectText("Added a key to code-web.")
	owner.Goto(c.public + "/console/credentials")
	owner.Fill("Public key", newPublicKey(t))
	owner.Fill("Person", "ana")
	owner.Fill("Label", "Ana's laptop")
	owner.Click("button", "Add key")
	owner.ExpectText("Now trusting Ana's laptop's key.")
	owner.Goto(c.public + "/console/settings")
	owner.Fill("URL", rcv.URL+"/hooks/pact-abcdef")
	owner.Click("button", "Add destination")
	owner.ExpectText("Notifications now go to " + rcv.URL + "/…cdef through webhook.")
	owner.Goto(c.public + "/console/projects/web")
	owner.Click("button", "Pin style")
	owner.ExpectText("Pinned style.")

	approver := c.signIn(ana, "Ana Approver")
	checkout := c.startPact(approver, "Checkout", "Rebuild the checkout page.", "code-web", "code-api")
	c.agent.ok("join_pact", map[string]any{"mandate_id": c.root, "pact_id": checkout})
	api.ok("join_pact", map[string]any{"mandate_id": apiRoot, "pact_id": checkout})
	// An agent's zone write, so the Pacts page lists a change with Undo.
	c.agent.ok("update_pact_section", map[string]any{"mandate_id": c.root, "pact_id": checkout, "body": "Web keeps the layout."})
	approver.Goto(c.public + "/console/pacts/" + checkout)
	approver.Click("button", "Pause @code-api")
	approver.ClickIn("dialog", "refused until the seat is woken", "button", "Pause @code-api")
	approver.ExpectText("Paused @code-api.")
	c.stall("code-web", "code-web stopped hearing of “Checkout”.")
	// The agent defers another task (Answer and resume); Ana answers the
	// first on its page (Change answer, while the agent has not read it:
	// its next call would, so it makes none after).
	font := c.post("Pick the font", "")
	c.agent.ok("pact_defer", map[string]any{"task_id": font, "mandate_id": c.root, "reason": "Which font should the site use?"})
	var region string
	require.NoError(t, c.d.NewRaw(`SELECT id::text FROM tasks WHERE title = 'Pick the region'`).Scan(context.Background(), &region))
	approver.Goto(c.public + "/console/tasks/" + region)
	approver.Fill("Your answer", "Frankfurt.")
	approver.Click("button", "Answer and resume")
	approver.ExpectText("Put “Pick the region” back on the board.")

	viewer := c.signIn(bob, "Bob Viewer")
	pages := append(consolePages(task, launch),
		struct{ name, path, heading string }{"pact", "/console/pacts/" + checkout, "Checkout"},
		struct{ name, path, heading string }{"held task", "/console/tasks/" + held, "Write the notes"})
	// What each page shows every role once it has read what it lists.
	loaded := map[string][]string{
		"needs-you":   {"Ship the release", "Which font should the site use?"},
		"tasks":       {"Write the notes"},
		"pacts":       {"Checkout"},
		"pact":        {"@code-web"},
		"mandates":    {"code-web"},
		"credentials": {"Ana's laptop (ana)"},
		"agents":      {"Manage runner-one"},
		"project":     {"House style"},
		"roles":       {"Runner"},
		"settings":    {"Bob Viewer", rcv.URL + "/…cdef"},
	}
	// …and what it shows a role besides.
	loadedFor := map[string]map[string][]string{
		"approver": {
			"needs-you":     {"Which layout first?", "Your answer: Frankfurt."},
			"pacts":         {"Wake it", "Which layout first?"},
			"notifications": {"Mark all read"},
		},
		"owner": {
			"needs-you": {"Which layout first?"},
			"pacts":     {"Which layout first?"},
		},
	}
	show := func(p *browsertest.Page, role string, pg struct{ name, path, heading string }) []string {
		t.Helper()
		p.Goto(c.public + pg.path)
		p.ExpectText(pg.heading)
		for _, text := range loaded[pg.name] {
			p.ExpectText(text)
		}
		for _, text := range loadedFor[role][pg.name] {
			p.ExpectText(text)
		}
		unfold(p, role, pg.name)
		require.Eventually(t, func() bool { return !strings.Contains(p.Text("main"), "Loading ") }, 10*time.Second, 50*time.Millisecond,
			"%s's %s page has read what it shows", role, pg.name)
		return p.Attrs("[data-op]", "data-op")
	}

	seen, ownerSeen, viewerSeen := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, pg := range pages {
		for _, op := range show(approver, "approver", pg) {
			require.Contains(t, ops, op, "a control on %s is marked %q, no operation", pg.path, op)
			require.LessOrEqual(t, roleRank(ops[op].role), roleRank("approver"),
				"an approver is shown %s on %s, whose least role is %s", op, pg.path, ops[op].role)
			seen[op] = true
		}

		for _, op := range show(viewer, "viewer", pg) {
			viewerSeen[op] = true
		}
		// Every control in the page, shown or folded away.
		for _, m := range shownOp.FindAllStringSubmatch(viewer.HTML(), -1) {
			op := ops[m[1]]
			require.True(t, op.role == "viewer" && op.own(),
				"a viewer with no seat and no agent is given the control of %s on %s (least role %q, %s %s)", m[1], pg.path, op.role, op.method, op.path)
		}
		if !filterPages[pg.name] {
			require.Empty(t, viewer.Texts("textbox"), "a viewer has nothing to type in on %s", pg.path)
		}

		for _, op := range show(owner, "owner", pg) {
			require.Contains(t, ops, op, "a control on %s is marked %q, no operation", pg.path, op)
			ownerSeen[op] = true
		}
	}

	t.Logf("shown to the approver: %v; to the owner: %v; to the viewer: %v", sortedOps(seen), sortedOps(ownerSeen), sortedOps(viewerSeen))
	for op := range marked {
		if _, out := notOnTheRoutes[op]; out {
			continue
		}
		switch role := ops[op].role; {
		case roleRank(role) <= roleRank("approver"):
			require.True(t, seen[op], "an approver is shown the control of %s (least role %s) somewhere (saw %v)", op, role, sortedOps(seen))
		case role == "owner":
			require.True(t, ownerSeen[op], "the owner is shown the control of %s somewhere (saw %v)", op, sortedOps(ownerSeen))
		default:
			t.Errorf("%s has the least role %q, which no journey's person has", op, role)
		}
	}
	// The viewer's own settings are there: the check above can fail.
	for _, op := range []string{"people-update-me", "pacts-set-my-settings", "notify-set-email-settings"} {
		require.True(t, viewerSeen[op], "a viewer is shown the control of %s, their own (saw %v)", op, sortedOps(viewerSeen))
	}
	c.requireAdminAPIOnly()
}

// newPublicKey is a fresh Ed25519 public key as the console takes one:
// base64url, unpadded.
func newPublicKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	return base64.RawURLEncoding.EncodeToString(pub)
}

// sortedOps is the sorted members of a set, for a failure's message.
func sortedOps(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
