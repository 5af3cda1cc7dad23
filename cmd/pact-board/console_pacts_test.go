package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/modules/people"
)

// Issue 31, section 2, Pacts: a person sets up and runs a pact from the
// console (docs/console.md, "Pacts"), in a real Chromium signed in through
// the real OpenID provider, with agents over MCP.

// secondAgent registers code-api in the project web, beside code-web,
// and returns it with its root mandate.
func (c *consoleBoard) secondAgent() (*agentClient, string) {
	c.t.Helper()
	reg, err := registerAgent(context.Background(), c.d, c.ident, demoOwner, people.AgentInput{ID: "code-api", Client: "code",
		Projects: []string{"web"}, Scope: []string{"task.read@project:web", "pact.read@project:web", "pact.write@project:web"}})
	require.NoError(c.t, err)
	return connect(c.t, c.public, "code-api", reg.Token), reg.RootMandateID.String()
}

// startPact starts a pact in project web from the console's New pact
// dialog, seating the agents named (each with the prefix the dialog
// suggests unless prefixes says otherwise), and returns its id.
func (c *consoleBoard) startPact(p *browsertest.Page, name, purpose string, agents ...string) string {
	c.t.Helper()
	p.Goto(c.public + "/console/pacts")
	p.Click("button", "New pact")
	p.ExpectText("You take its first seat")
	p.Fill("Name", name)
	p.Select("Project", "Web (web)")
	p.Fill("Purpose", purpose)
	p.Fill("Your prefix", "AN")
	for _, a := range agents {
		p.Click("checkbox", "Agent "+a)
	}
	p.Click("button", "Start the pact")
	url := p.WaitURL(c.public + "/console/pacts/")
	p.ExpectText(name)
	id := strings.TrimPrefix(url, c.public+"/console/pacts/")
	require.Regexp(c.t, `^[0-9a-f-]{36}$`, id)
	return id
}

// listed is the pact of id in an agent's list_pacts, or nil.
func listed(t *testing.T, a *agentClient, mandate, id string) map[string]any {
	t.Helper()
	for _, x := range a.ok("list_pacts", map[string]any{"mandate_id": mandate})["pacts"].([]any) {
		if x.(map[string]any)["id"] == id {
			return x.(map[string]any)
		}
	}
	return nil
}

// TestConsoleStartsAPactTheAgentsSee: a person starts a pact with two
// agents from the New pact dialog, whose prefixes are checked as she
// types; both agents then see it through list_pacts, their seats waiting.
func TestConsoleStartsAPactTheAgentsSee(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	api, apiRoot := c.secondAgent()
	require.Nil(t, listed(t, c.agent, c.root, "none"))

	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/pacts")
	p.Click("button", "New pact")
	p.Fill("Name", "Checkout")
	p.Select("Project", "Web (web)")
	p.Fill("Purpose", "Rebuild the checkout page.")
	p.Fill("Rules", "Each keeps to its own zone.")
	// The prefix is checked as it is typed, against the API's rule.
	p.Fill("Your prefix", "an")
	p.ExpectText("Use 1 to 4 capital letters, A to Z, and nothing else.")
	p.Fill("Your prefix", "A1")
	p.ExpectText("Use 1 to 4 capital letters, A to Z, and nothing else.")
	p.Fill("Your prefix", "CW")
	p.ExpectText("CW is free")
	p.Click("checkbox", "Agent code-web")
	// code-web's suggested prefix is CW, now taken by the person's own.
	p.Fill("Prefix for code-web", "CW")
	p.ExpectText("CW is already your seat's in this pact.")
	p.Fill("Your prefix", "AN")
	p.ExpectText("AN is free")
	p.Click("checkbox", "Agent code-api")
	p.Fill("Prefix for code-api", "CA")
	p.Click("button", "Start the pact")
	url := p.WaitURL(c.public + "/console/pacts/")
	id := strings.TrimPrefix(url, c.public+"/console/pacts/")
	p.ExpectText("Rebuild the checkout page.")
	p.ExpectText("Your seat @ana")

	for _, a := range []struct {
		client  *agentClient
		mandate string
	}{{c.agent, c.root}, {api, apiRoot}} {
		got := listed(t, a.client, a.mandate, id)
		require.NotNil(t, got, "the agent sees the pact in list_pacts")
		require.Equal(t, "Checkout", got["name"])
		require.Equal(t, "invited", got["your_state"], "its seat waits for it")
	}
	web := listed(t, c.agent, c.root, id)
	require.Equal(t, "@code-web", web["your_seat"])
	got := c.agent.ok("get_pact", map[string]any{"mandate_id": c.root, "pact_id": id})
	raw, err := json.Marshal(got)
	require.NoError(t, err)
	require.Contains(t, string(raw), `"prefix":"CW"`)
	require.Contains(t, string(raw), `"prefix":"CA"`)
	require.Contains(t, string(raw), `"prefix":"AN"`)
	c.requireAdminAPIOnly()
}

// TestConsolePostReachesTheAgents: a person posts in a pact's thread from
// her own seat and writes her zone and handshake; the agents read all
// three with get_pact. Removing a seat says first what it does, and the
// removed agent's writes are then refused.
func TestConsolePostReachesTheAgents(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	api, apiRoot := c.secondAgent()
	p := c.signIn(ana, "Ana Approver")
	id := c.startPact(p, "Checkout", "Rebuild the checkout page.", "code-web", "code-api")
	c.agent.ok("join_pact", map[string]any{"mandate_id": c.root, "pact_id": id})
	api.ok("join_pact", map[string]any{"mandate_id": apiRoot, "pact_id": id})

	const body = "Ship the new checkout on Thursday — «not» Friday; 東京 ✓"
	p.Goto(c.public + "/console/pacts/" + id)
	p.Fill("Your message", body)
	p.Click("button", "Post")
	p.ExpectText("Posted.")
	p.ExpectText("AN-001")
	p.Fill("Your zone", "Ana owns the copy.")
	p.Click("button", "Save zone")
	p.ExpectText("Saved your zone.")
	p.Fill("Your handshake", "Ask me about prices.")
	p.Click("button", "Save handshake")
	p.ExpectText("Saved your handshake.")

	for _, a := range []struct {
		client  *agentClient
		mandate string
	}{{c.agent, c.root}, {api, apiRoot}} {
		got := a.client.ok("get_pact", map[string]any{"mandate_id": a.mandate, "pact_id": id})
		var read struct {
			Messages []struct{ Number, Author, Body string } `json:"messages"`
			Sections []struct{ Key, Body string }            `json:"sections"`
			Seats    []struct{ Key, Handshake string }       `json:"seats"`
		}
		raw, err := json.Marshal(got)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &read))
		require.Len(t, read.Messages, 1, string(raw))
		require.Equal(t, "AN-001", read.Messages[0].Number)
		require.Equal(t, "human:ana", read.Messages[0].Author)
		require.Equal(t, body, read.Messages[0].Body, "word for word")
		require.Contains(t, read.Sections, struct{ Key, Body string }{"@ana", "Ana owns the copy."}, string(raw))
		require.Contains(t, read.Seats, struct{ Key, Handshake string }{"@ana", "Ask me about prices."}, string(raw))
	}

	// Removing a seat: the dialog says what it does before it does it.
	p.Click("button", "Remove @code-api")
	p.ExpectText("writes nothing more in this pact")
	api.ok("post_pact_message", map[string]any{"mandate_id": apiRoot, "pact_id": id, "body": "still here"}) // only asked
	p.ClickIn("dialog", "writes nothing more", "button", "Remove the seat")
	p.ExpectText("Removed @code-api.")
	refusal, refused := api.call("post_pact_message", map[string]any{"mandate_id": apiRoot, "pact_id": id, "body": "and now?"})
	require.True(t, refused, "a removed seat writes nothing more")
	require.Equal(t, "forbidden", refusal["error"])
	// One more, and the pact would have one voice: the dialog says so, and
	// so does the answer.
	p.Click("button", "Remove @code-web")
	p.ExpectText("A pact with one voice is just a note.")
	p.ClickIn("dialog", "one voice", "button", "Remove the seat")
	p.ExpectText("Removed @code-web. Warning: a pact with one voice is just a note")
	c.requireAdminAPIOnly()
}

// stall switches agent's pact webhook off as five failed deliveries do
// (docs/pacts.md, "Delivery without polling"): the stuck sentence set, no
// more sends queued.
func (c *consoleBoard) stall(agent, sentence string) {
	c.t.Helper()
	_, err := c.d.ExecContext(context.Background(), `INSERT INTO pact_delivery (agent_id, org_id, mode, url, secret, failures, disabled_at, stuck)
		VALUES (?, 'default', 'webhook', 'https://hooks.example.com/pact', 'whsec_QUJDQUJDQUJDQUJDQUJDQUJDQUJDQUJD', 5, now(), ?)`, agent, sentence)
	require.NoError(c.t, err)
}

// sends counts the pact sends ever queued for agent.
func (c *consoleBoard) sends(agent string) int {
	c.t.Helper()
	var n int
	require.NoError(c.t, c.d.NewRaw(`SELECT count(*) FROM pact_sends WHERE agent_id = ?`, agent).Scan(context.Background(), &n))
	return n
}

// TestConsoleWakeItTurnsDeliveriesBackOn: a job whose agent's webhook was
// switched off shows as stuck with the sentence its person was told; Wake
// it turns the webhook back on, and the next message is queued for it
// where, before, none was.
func TestConsoleWakeItTurnsDeliveriesBackOn(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	p := c.signIn(ana, "Ana Approver")
	id := c.startPact(p, "Checkout", "Rebuild the checkout page.", "code-web")
	c.agent.ok("join_pact", map[string]any{"mandate_id": c.root, "pact_id": id})
	const sentence = "code-web stopped hearing of “Checkout”: https://hooks.example.com/pact did not accept 5 deliveries. Wake it once it is fixed."
	c.stall("code-web", sentence)

	p.Goto(c.public + "/console/pacts/" + id)
	p.Fill("Your message", "Before the wake")
	p.Click("button", "Post")
	p.ExpectText("AN-001")
	require.Zero(t, c.sends("code-web"), "switched off, nothing is queued for code-web")

	p.Goto(c.public + "/console/pacts")
	p.ExpectText("Stuck")
	p.ExpectText(sentence)
	p.Click("button", "Wake it")
	p.ExpectText("Woke code-web's webhook: deliveries resume with the next event.")
	var off *time.Time
	require.NoError(t, c.d.NewRaw(`SELECT disabled_at FROM pact_delivery WHERE agent_id = 'code-web'`).Scan(context.Background(), &off))
	require.Nil(t, off, "the webhook is on again")
	require.Eventually(t, func() bool { return !slices.Contains(p.Texts("button"), "Wake it") }, 10*time.Second, 50*time.Millisecond,
		"the job is no longer stuck")

	p.Goto(c.public + "/console/pacts/" + id)
	p.Fill("Your message", "After the wake")
	p.Click("button", "Post")
	p.ExpectText("AN-002")
	require.Equal(t, 1, c.sends("code-web"), "the next message is queued for code-web's webhook")
	c.requireAdminAPIOnly()
}

// longPurpose is a purpose the pact page folds behind Show all.
const longPurpose = "Rebuild the checkout page.\nKeep the old one running until the new one takes orders.\n" +
	"Measure conversion for a week before switching.\nAsk a person before touching prices.\n" +
	"The last line says who to call when payments fail: the on-call person of the payments team."

// TestConsoleFoldsOlderQuestionsAndLongPurposes: questions raised more
// than two weeks ago are folded under their count, the recent ones shown;
// a long purpose shows its start and Show all.
func TestConsoleFoldsOlderQuestionsAndLongPurposes(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	id := c.agent.ok("create_pact", map[string]any{"mandate_id": c.root, "project_id": "web", "name": "Checkout",
		"purpose": longPurpose, "prefix": "CW"})["pact_id"].(string)
	for _, q := range []string{"Which payment provider first?", "Keep the coupon field?"} {
		c.agent.ok("raise_pact_decision", map[string]any{"mandate_id": c.root, "pact_id": id, "question": q, "options": []string{"Yes", "No"}})
	}
	// What was asked never changes (migration 017's trigger): the test ages
	// one question with the triggers off, as the database's owner.
	ctx := context.Background()
	tx, err := c.d.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `SET LOCAL session_replication_role = replica`)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `UPDATE pact_decisions SET raised_at = now() - interval '15 days' WHERE question = 'Keep the coupon field?'`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())

	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/pacts")
	p.ExpectText("Which payment provider first?")
	p.ExpectText("1 older question, raised more than two weeks ago")
	require.NotContains(t, p.Text("main"), "Keep the coupon field?", "folded")
	p.Press("Tab") // the keyboard opens it as the mouse does
	p.TabTo("1 older question, raised more than two weeks ago", 60)
	p.Press("Enter")
	p.ExpectText("Keep the coupon field?")

	p.Goto(c.public + "/console/pacts/" + id)
	p.ExpectText("Rebuild the checkout page.")
	require.NotContains(t, p.Text("#pact-purpose"), "on-call person", "the end waits behind Show all")
	p.Click("button", "Show all")
	p.ExpectText("the on-call person of the payments team.")
	p.Click("button", "Show less")
	require.NotContains(t, p.Text("#pact-purpose"), "on-call person")
	c.requireAdminAPIOnly()
}

// zoneOf is the body of zone key in pact id as agent a reads it with
// get_pact.
func zoneOf(t *testing.T, a *agentClient, mandate, id, key string) string {
	t.Helper()
	raw, err := json.Marshal(a.ok("get_pact", map[string]any{"mandate_id": mandate, "pact_id": id}))
	require.NoError(t, err)
	var read struct {
		Sections []struct{ Key, Body string } `json:"sections"`
	}
	require.NoError(t, json.Unmarshal(raw, &read))
	for _, s := range read.Sections {
		if s.Key == key {
			return s.Body
		}
	}
	t.Fatalf("no zone %s in %s", key, raw)
	return ""
}

// change is a row of GET /admin/api/pacts/changes, as far as the
// journeys read it.
type change struct {
	Entry struct {
		ID      int64          `json:"id"`
		Action  string         `json:"action"`
		Payload map[string]any `json:"payload"`
	} `json:"entry"`
	SaidYes string `json:"said_yes"`
}

// changes reads "What the agents changed this week" from the Admin API,
// as the person signed in on p reads it, newest first, and keeps the rows
// of action.
func changes(t *testing.T, c *consoleBoard, p *browsertest.Page, action string) []change {
	t.Helper()
	p.Goto(c.public + "/admin/api/pacts/changes?limit=200")
	var got struct{ Changes []change }
	require.NoError(t, json.Unmarshal([]byte(p.Text("body")), &got), p.Text("body"))
	var out []change
	for _, ch := range got.Changes {
		if ch.Entry.Action == action {
			out = append(out, ch)
		}
	}
	return out
}

// changeRow is the CSS selector of the row of "What the agents changed
// this week" whose tool is tool.
func changeRow(tool string) string {
	return `table.changes tbody tr:has(td:text-is("` + tool + `"))`
}

// TestConsoleUndoesAnAgentsZoneWrite: an agent writes its zone twice; the
// person sees both changes in "What the agents changed this week", each
// Undo named apart by its log entry number and the zone's version its
// write made (the page passes axe with them, at both widths). Undo of the
// older write, by its name, is refused (the zone was written again) and
// changes nothing; Undo of the newer one, after a confirmation saying what
// it will do, puts back the first write's text, which the agent's get_pact
// then reads. A viewer sees the changes but no Undo (docs/pacts.md, "Undo").
func TestConsoleUndoesAnAgentsZoneWrite(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	p := c.signIn(ana, "Ana Approver")
	id := c.startPact(p, "Checkout", "Rebuild the checkout page.", "code-web")
	c.agent.ok("join_pact", map[string]any{"mandate_id": c.root, "pact_id": id})
	for _, body := range []string{"Web drops the layout.", "Web keeps the layout, in two columns."} {
		c.agent.ok("update_pact_section", map[string]any{"mandate_id": c.root, "pact_id": id, "body": body})
	}
	require.Equal(t, "Web keeps the layout, in two columns.", zoneOf(t, c.agent, c.root, id, "@code-web"))

	// The two writes, newest first, as the Admin API lists them: each its
	// own entry, and the zone's version after it.
	writes := changes(t, c, p, "update_pact_section")
	require.Len(t, writes, 2)
	newer, older := writes[0], writes[1]
	label := func(w change) string {
		return fmt.Sprintf("Undo #%d: version %v of zone @code-web", w.Entry.ID, w.Entry.Payload["version"])
	}
	require.Equal(t, older.Entry.Payload["version"].(float64)+1, newer.Entry.Payload["version"], "the newer write made the next version")
	require.NotEqual(t, label(older), label(newer))

	viewer := c.signIn(bob, "Bob Viewer")
	viewer.Goto(c.public + "/console/pacts")
	viewer.ExpectText("What the agents changed this week")
	viewer.ExpectText("nobody needed to")
	require.NotContains(t, viewer.Attrs("[data-op]", "data-op"), "pacts-undo-change", "a viewer sees no Undo")

	p.Goto(c.public + "/console/pacts")
	p.ExpectText("What the agents changed this week")
	p.ExpectText("nobody needed to")
	p.ExpectText(label(newer))
	p.ExpectText(label(older))
	for _, size := range []struct{ width, height int }{{1280, 800}, {390, 844}} {
		p.Resize(size.width, size.height)
		require.Empty(t, browsertest.Serious(p.Axe()), "the Pacts page with two Undo at %d px", size.width)
	}
	p.Resize(1280, 800)

	// The older write, by its name: the zone moved on since, so nothing changes.
	p.Click("button", label(older))
	p.ExpectText("puts back the text zone @code-web had before this write")
	p.ClickIn("dialog", "puts back the text", "button", "Undo the change")
	p.ExpectText("was written again after this change")
	require.Equal(t, "Web keeps the layout, in two columns.", zoneOf(t, c.agent, c.root, id, "@code-web"), "the older Undo changed nothing")

	// The newer write, by its name: the first write's text comes back.
	p.Click("button", label(newer))
	p.ExpectText("puts back the text zone @code-web had before this write")
	require.Equal(t, "Web keeps the layout, in two columns.", zoneOf(t, c.agent, c.root, id, "@code-web"), "only asked")
	p.ClickIn("dialog", "puts back the text", "button", "Undo the change")
	p.ExpectText("Put back zone @code-web as it was before agent:code-web wrote it.")
	require.Equal(t, "Web drops the layout.", zoneOf(t, c.agent, c.root, id, "@code-web"), "the agent reads the first write's text")
	c.requireAdminAPIOnly()
}

// TestConsoleShowsWhoSaidYes: the agent posts a task that needs approval,
// Ana approves it in Needs you, and the agent claims it. In "What the
// agents changed this week" the claim says Ana said yes, in the Admin
// API's answer and on the Pacts page; the post, made before her approval,
// says nobody needed to.
func TestConsoleShowsWhoSaidYes(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	task := c.post("Ship the release", "deploy.web")
	p := c.signIn(ana, "Ana Approver")
	p.ExpectText("Ship the release")
	p.Click("button", "Approve")
	p.ExpectText("Approved “Ship the release”.")
	c.agent.ok("pact_claim", map[string]any{"task_id": task, "mandate_id": c.root})

	claims, posts := changes(t, c, p, "pact_claim"), changes(t, c, p, "pact_post")
	require.Len(t, claims, 1)
	require.Len(t, posts, 1)
	require.Equal(t, "human:ana", claims[0].SaidYes, "the claim ran on Ana's approval")
	require.Equal(t, "", posts[0].SaidYes, "the post came before anyone's yes")

	p.Goto(c.public + "/console/pacts")
	p.ExpectText("What the agents changed this week")
	require.Equal(t, "human:ana", p.Text(changeRow("pact_claim")+" td:nth-child(5)"))
	require.Equal(t, "nobody needed to", p.Text(changeRow("pact_post")+" td:nth-child(5)"))
	c.requireAdminAPIOnly()
}
