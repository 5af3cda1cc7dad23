package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConsoleTaskAnswerChangesUntilRead: a person answers a deferred
// task's question in Needs you; after a reload the answer is still there
// with "Change answer"; the changed words are what the agent's pact_wait
// returns, and once it has read them the card is gone.
func TestConsoleTaskAnswerChangesUntilRead(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	task := c.post("Pick the region", "")
	c.agent.ok("pact_defer", map[string]any{"task_id": task, "mandate_id": c.root,
		"reason": "Which region should the database live in?"})

	p := c.signIn(ana, "Ana Approver")
	p.Fill("Your answer", "Frankfurt")
	p.Click("button", "Answer and resume")
	p.ExpectText("Put “Pick the region” back on the board.")

	require.Equal(t, http.StatusOK, p.Goto(c.public+"/console/"))
	p.ExpectText("Answered: the agent has not read it yet")
	p.ExpectText("Frankfurt")
	p.Click("button", "Change answer")
	const changed = "Zürich — closer to the customers ✓"
	p.Fill("Your new answer", changed)
	p.Click("button", "Save answer")
	p.ExpectText("Changed the answer to “Pick the region”.")

	got := c.agent.ok("pact_wait", map[string]any{"mandate_id": c.root, "task_id": task, "seconds": 0})
	msgs, _ := got["messages"].([]any)
	require.Len(t, msgs, 1, "%v", got)
	require.Equal(t, changed, msgs[0].(map[string]any)["body"], "the agent reads the changed words")

	require.Equal(t, http.StatusOK, p.Goto(c.public+"/console/"))
	p.ExpectText("Nothing is waiting on you.")
	c.requireAdminAPIOnly()
}
