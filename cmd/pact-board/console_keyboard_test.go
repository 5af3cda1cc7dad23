package main

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConsoleIsUsableWithTheKeyboard: a person who uses no mouse skips to
// the content, approves one task and rejects another with Tab, Enter and
// Escape alone: the confirmation dialog takes the focus, Escape leaves
// everything as it was, and the confirmed rejection reaches the agent.
func TestConsoleIsUsableWithTheKeyboard(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ship := c.post("Ship the release", "deploy.web")
	drop := c.post("Drop the cache", "deploy.web")

	p := c.signIn(ana, "Ana Approver")
	p.ExpectText("Drop the cache")

	// Each page puts the focus on its content; the skip link, first in the
	// page, leads back there from the navigation.
	require.Equal(t, "main", p.Focused().Tag, "the page's content has the focus")
	for i := 0; p.Focused().Text != "Skip to content"; i++ {
		require.Less(t, i, 20, "Shift+Tab reaches the skip link")
		p.Press("Shift+Tab")
	}
	p.Press("Enter")
	require.Equal(t, "main", p.Focused().Tag)

	// Approve the first task (the oldest comes first).
	p.TabTo("Approve", 40)
	p.Press("Enter")
	p.ExpectText("Approved “Ship the release”.")
	require.Equal(t, "working", c.agent.ok("pact_claim", map[string]any{"task_id": ship, "mandate_id": c.root})["status"])
	// The list renders again without the approved task: a button found
	// before that may be gone when Enter reaches it.
	require.Eventually(t, func() bool {
		n := 0
		for _, b := range p.Texts("button") {
			if b == "Approve" {
				n++
			}
		}
		return n == 1
	}, 10*time.Second, 50*time.Millisecond, "the approved task leaves the list")

	// Reject the second behind its confirmation: Escape first changes nothing.
	p.TabTo("Reject", 40)
	p.Press("Enter")
	require.Eventually(t, func() bool { return slices.Contains(p.Texts("heading"), "Reject “Drop the cache”?") },
		10*time.Second, 50*time.Millisecond, "the confirmation says what it will do")
	require.True(t, p.Focused().InDialog, "the dialog takes the focus")
	p.Press("Escape")
	refusal, refused := c.agent.call("pact_claim", map[string]any{"task_id": drop, "mandate_id": c.root})
	require.True(t, refused)
	require.Equal(t, "approval_pending", refusal["error"], "Escape rejected nothing")

	p.TabTo("Reject", 40)
	p.Press("Enter")
	// The dialog opens once the page has rendered it.
	require.Eventually(t, func() bool { return p.Focused().InDialog }, 10*time.Second, 50*time.Millisecond,
		"the dialog takes the focus")
	f := p.Focused()
	for f.Text != "Reject" || !f.InDialog {
		p.Press("Tab")
		f = p.Focused()
		require.True(t, f.InDialog, "Tab stays in the modal dialog: %+v", f)
	}
	p.Press("Enter")
	p.ExpectText("Nothing is waiting on you.")
	var status string
	require.NoError(t, c.d.NewRaw(`SELECT status FROM tasks WHERE id = ?`, drop).Scan(t.Context(), &status))
	require.Equal(t, "rejected", status)
	c.requireAdminAPIOnly()
}
