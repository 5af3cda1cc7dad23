package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
	"github.com/pactboard/pact/core/identity"
)

// TestConsoleAcceptsAnInvitation: an owner adds Cy by email; Cy signs in
// through the OpenID provider with an account that is no person yet, sees
// only the invitation of that email (not Dee's, at another address; the
// page passes axe), accepts it and is in the console
// as that person, with the session cookie alone (no token in the browser).
func TestConsoleAcceptsAnInvitation(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoard(t)
	ctx := context.Background()
	_, err := c.ident.AddHuman(ctx, demoOwner, identity.HumanInput{ID: "cy", Name: "Cy Viewer", Role: identity.Viewer,
		Email: cy.Email})
	require.NoError(t, err)
	// Dee is invited too, at another address: Cy must not see it.
	_, err = c.ident.AddHuman(ctx, demoOwner, identity.HumanInput{ID: "dee", Name: "Dee Elsewhere", Role: identity.Approver,
		Email: "dee@example.com"})
	require.NoError(t, err)

	p := c.signInAccount(cy)
	p.ExpectText("who is not yet a person of this board")
	p.ExpectText("invited you as")
	// Only the invitation of the verified email shows.
	require.Contains(t, p.Text("main"), "Cy Viewer")
	require.NotContains(t, p.Text("main"), "Dee Elsewhere", "another address's invitation is not shown")
	var accept []string
	for _, b := range p.Texts("button") {
		if strings.HasPrefix(b, "Accept and join") {
			accept = append(accept, b)
		}
	}
	require.Len(t, accept, 1, "one invitation, Cy's: %v", accept)
	require.NotContains(t, p.Text("main"), "start your own organization",
		"sign-up is off on this board (PACT_SIGNUP_ENABLED), so the console does not offer it")
	for _, width := range []int{1280, 390} {
		p.Resize(width, 844)
		require.Empty(t, browsertest.Serious(p.Axe()), "the invitation page at %d px", width)
	}
	p.Resize(1280, 800)
	p.Click("button", "Accept and join "+demoOrgName(t, c))
	p.ExpectText("Cy Viewer")
	p.ExpectText("Needs you")

	var bound int
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM humans WHERE id = 'cy' AND auth_sub = ?`, cy.Email).
		Scan(ctx, &bound))
	require.Equal(t, 1, bound, "the account is Cy now")
	c.requireAdminAPIOnly()
}

// TestConsoleSignsUpWhenSignupIsOn: on a board with sign-up on, an account
// that is no person and has no invitation is offered its own organization,
// starts it from the console (accepting the terms the console names) and is
// in the console as that organization's owner; the page passes axe at both
// widths.
func TestConsoleSignsUpWhenSignupIsOn(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	c := startConsoleBoardWith(t, func(vars map[string]string) { vars["PACT_SIGNUP_ENABLED"] = "on" })
	p := c.signInAccount(cy)
	p.ExpectText("No invitation is waiting for this email")
	p.ExpectText("Or start your own organization")
	for _, width := range []int{1280, 390} {
		p.Resize(width, 844)
		require.Empty(t, browsertest.Serious(p.Axe()), "the sign-up page at %d px", width)
	}
	p.Resize(1280, 800)
	p.Fill("Organization name", "Cy's Lab")
	p.Fill("Your name", "Cy Founder")
	p.Click("checkbox", "I accept the board's terms (version 2026-01)")
	p.Click("button", "Start the organization")
	p.ExpectText("Cy Founder")
	p.ExpectText("Needs you")

	ctx := context.Background()
	var role, org, terms string
	require.NoError(t, c.d.NewRaw(`SELECT h.role, o.name, o.terms_version FROM humans h JOIN orgs o ON o.id = h.org_id
		WHERE h.auth_sub = ?`, cy.Email).Scan(ctx, &role, &org, &terms))
	require.Equal(t, []string{"owner", "Cy's Lab", "2026-01"}, []string{role, org, terms},
		"the account owns the organization it started, under the terms the console named")
	c.requireAdminAPIOnly()
}

// demoOrgName is the name of the organization pact-board --demo made.
func demoOrgName(t *testing.T, c *consoleBoard) string {
	t.Helper()
	var name string
	require.NoError(t, c.d.NewRaw(`SELECT o.name FROM orgs o JOIN humans h ON h.org_id = o.id WHERE h.id = ?`,
		demoOwner).Scan(context.Background(), &name))
	return name
}
