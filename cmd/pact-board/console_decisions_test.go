package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConsoleDecisionsKeepChangeAnswerUntilRead: a person answers a pact
// decision in Needs you, reloads and still sees the answer with "Change
// answer" (the board lists it until the agent reads it, not the page's
// memory), changes it, and the agent reads the changed words over MCP.
// From then on the answer is final: a change is refused in the page, and
// after a reload the decision is gone from Needs you.
func TestConsoleDecisionsKeepChangeAnswerUntilRead(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	pact := c.agent.ok("create_pact", map[string]any{"mandate_id": c.root, "project_id": "web", "name": "Launch",
		"purpose": "Ship the web release together.", "prefix": "CW"})["pact_id"].(string)
	decision := c.agent.ok("raise_pact_decision", map[string]any{"mandate_id": c.root, "pact_id": pact,
		"question": "When do we ship the release?", "options": []any{"Friday", "Monday"}})["decision_id"].(string)

	p := c.signIn(ana, "Ana Approver")
	needs := func() {
		require.Equal(t, http.StatusOK, p.Goto(c.public+"/console/"))
		p.ExpectText("Needs you")
	}
	p.ExpectText("When do we ship the release?")
	p.Click("button", "Friday")
	p.ExpectText("Your choice:")

	needs() // a reload: the board still lists it, with the answer
	p.ExpectText("When do we ship the release?")
	p.ExpectText("Your choice:")
	require.Contains(t, p.Texts("button"), "Change answer")
	require.NotContains(t, p.Texts("button"), "Friday", "answered: the choices wait behind Change answer")

	const words = "Monday — after the «review» ✓"
	p.Click("button", "Change answer")
	p.Fill("Your own words", words)
	p.Click("button", "Send answer")
	p.ExpectText("Your words:")
	needs()
	p.ExpectText(words)
	require.Contains(t, p.Texts("button"), "Change answer")
	// The page reads its decisions again when its live stream opens
	// (main.tsx), which on a loaded machine can be seconds after it
	// loaded. A read after the agent's would drop the decision before the
	// page could show the refusal, so the agent reads only once the page
	// has asked twice since it loaded: as it mounted, and as its stream
	// opened.
	require.Eventually(t, func() bool {
		asked := 0
		for _, r := range p.Requests() {
			if r.Navigation {
				asked = 0
			}
			if strings.Contains(r.URL, "/admin/api/pact-decisions") {
				asked++
			}
		}
		return asked >= 2
	}, 15*time.Second, 20*time.Millisecond, "the page did not read its decisions again as its live stream opened")
	p.ExpectText(words)

	// The agent reads the answer: the changed words, and now final.
	view := c.agent.ok("get_pact", map[string]any{"mandate_id": c.root, "pact_id": pact})
	decisions := view["decisions"].([]any)
	require.Len(t, decisions, 1)
	got := decisions[0].(map[string]any)
	require.Equal(t, decision, got["id"])
	require.Equal(t, words, got["answer"])

	// The page still shows it until it reloads; a change is refused.
	p.Click("button", "Change answer")
	p.Click("button", "Friday")
	p.ExpectText("the agent has read the answer; post in the pact instead")

	needs()
	p.ExpectText("Nothing is waiting on you.")
	require.NotContains(t, p.Texts("button"), "Change answer")
	c.requireAdminAPIOnly()
}
