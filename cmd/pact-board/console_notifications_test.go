package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
)

// documentLoads counts the documents p loaded: a reload adds one.
func documentLoads(p *browsertest.Page) int {
	n := 0
	for _, r := range p.Requests() {
		if r.Navigation {
			n++
		}
	}
	return n
}

// TestConsoleBellShowsANoticeWithoutAReload: Ana, signed in, has nothing
// unread; an agent posts a task that needs approval over MCP, and without
// a reload the header's bell counts it and Notifications lists it (For me,
// Waiting on you). From the keyboard alone she reaches the bell and marks
// the notice read; the bell counts none, and the notice still waits on
// her under Waiting on you.
func TestConsoleBellShowsANoticeWithoutAReload(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	p := c.signIn(ana, "Ana Approver")
	p.Click("link", "Notifications, 0 unread")
	p.ExpectText("Nothing unread.")
	loads := documentLoads(p)

	c.post("Ship the release", "deploy.web")
	p.ExpectText("Ship the release")
	require.Equal(t, loads, documentLoads(p), "Notifications listed it without a reload")
	p.Goto(c.public + "/console/notifications")
	loads = documentLoads(p)
	c.post("Roll back the release", "deploy.web")
	p.ExpectText("Roll back the release")
	p.TabTo("Notifications, 2 unread", 20) // the bell, live and by keyboard
	require.Equal(t, loads, documentLoads(p), "the bell and the page updated without a reload")

	p.TabTo("Mark read: Roll back the release", 40)
	p.Press("Enter")
	p.TabTo("Notifications, 1 unread", 60)

	p.Click("tab", "Waiting on you")
	p.ExpectText("Roll back the release")
	p.ExpectText("Ship the release")
	p.Click("tab", "Everything")
	p.ExpectText("Roll back the release")
	require.Equal(t, loads, documentLoads(p), "no reload")
	c.requireAdminAPIOnly()
}
