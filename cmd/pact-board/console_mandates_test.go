package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/people"
)

// Mandates as a tree (issue 31, section 2, "Pictures"; docs/console.md,
// "Mandates"): each person's roots with what was delegated under them,
// the subtree a revocation takes down shown before it happens, and a
// person issuing and replacing root mandates.

// mandateTreeBoard is a console board where code-web delegated a task to
// review-web, so code-web's root has a delegated link under it, and
// review-web and ops-web hold roots of their own beside it.
func mandateTreeBoard(t *testing.T) (c *consoleBoard, delegated string) {
	t.Helper()
	c = startConsoleBoard(t)
	for _, id := range []string{"review-web", "ops-web"} {
		_, err := registerAgent(t.Context(), c.d, c.ident, demoOwner, people.AgentInput{ID: id, Client: "code", Projects: []string{"web"},
			Scope: []string{"task.read@project:web", "task.work@project:web"}})
		require.NoError(t, err)
	}
	out := c.agent.ok("pact_post", map[string]any{"project_id": "web", "title": "Review the copy", "mandate_id": c.root,
		"delegate_to": "review-web"})
	return c, out["delegated_mandate_id"].(string)
}

// treeNodes reads every node the tree shows (each an <article>, whose text
// starts with its holder and then its kind line) as "holder: kind line",
// keeping those for which keep holds.
func treeNodes(texts []string, keep func(text string) bool) []string {
	var out []string
	for _, a := range texts {
		lines := strings.Split(a, "\n")
		if len(lines) < 2 || !keep(a) {
			continue
		}
		kind := ""
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "Root mandate from") || strings.HasPrefix(l, "Delegated by") {
				kind = l
			}
		}
		out = append(out, lines[0]+": "+kind)
	}
	slices.Sort(out)
	return out
}

// TestConsoleMandateTreeShowsWhatARevocationTakesDown: the tree shows the
// delegated link under its person's root and its agent; asking to revoke
// code-web's root highlights and counts exactly what the impact operation
// reports, changing nothing; the confirmation then revokes exactly the
// highlighted mandates.
func TestConsoleMandateTreeShowsWhatARevocationTakesDown(t *testing.T) {
	c, delegated := mandateTreeBoard(t)
	p := c.signIn(ana, "Ana Approver")

	// What the impact operation reports, read as Ana reads it.
	p.Goto(c.public + "/admin/api/mandates/" + c.root + "/impact")
	var impact struct {
		Descendants []struct{ ID, Holder string }
	}
	require.NoError(t, json.Unmarshal([]byte(p.Text("body")), &impact), p.Text("body"))
	want := []string{"code-web: Root mandate from owner"}
	for _, d := range impact.Descendants {
		want = append(want, d.Holder+": Delegated by code-web · depth 1")
	}
	slices.Sort(want)

	p.Goto(c.public + "/console/mandates")
	p.ExpectText("Review the copy")
	// The person, their root for code-web, and under it the link delegated to review-web.
	person := `section[aria-label="Mandates issued by owner"]`
	root := person + ` > ul.tree > li:has(> article[aria-label="code-web, root mandate"])`
	require.True(t, strings.HasPrefix(p.Text(root+" > article"), "code-web\n"), p.Text(root))
	under := p.Text(root + ` > ul.tree > li > article`)
	require.True(t, strings.HasPrefix(under, "review-web\n"), under)
	require.Contains(t, under, "Delegated by code-web")
	require.Contains(t, under, "Review the copy", "the delegated link names the task it was delegated for")
	require.Subset(t, treeNodes(p.Texts("article"), func(string) bool { return true }), []string{"code-web: Root mandate from owner",
		"review-web: Root mandate from owner", "ops-web: Root mandate from owner", "review-web: Delegated by code-web · depth 1"},
		"the agents' roots and the delegated link, each once")

	// Asking changes nothing, and highlights exactly the impact.
	p.ClickIn(`article[aria-label="code-web, root mandate"]`, "Root mandate from owner", "button", "Revoke…")
	p.ExpectText("If you revoke this mandate")
	doomed := func(a string) bool { return strings.Contains(a, "Would be revoked") }
	shown := treeNodes(p.Texts("article"), doomed)
	require.Equal(t, want, shown, "the highlighted subtree is what the impact operation reports")
	p.ExpectText(map[int]string{1: "1 mandate would be revoked", 2: "2 mandates would be revoked"}[len(want)])
	c.agent.ok("pact_list", map[string]any{"mandate_id": c.root})

	p.Click("button", "Revoke mandate")
	p.ClickIn("dialog", "This cannot be undone.", "button", "Revoke")
	p.ExpectText("Revoked code-web's mandate")

	// Exactly the highlighted mandates were revoked: code-web's root and
	// the link under it (a revocation marks its mandate, and every mandate
	// below a revoked one authorizes nothing: core/mandate), not
	// review-web's or ops-web's own roots.
	var revoked []string
	require.NoError(t, c.d.NewRaw(`WITH RECURSIVE down AS (
			SELECT id FROM mandates WHERE revoked_at IS NOT NULL
			UNION SELECT m.id FROM mandates m JOIN down ON m.parent_id = down.id)
		SELECT holder || ': ' || CASE WHEN parent_id IS NULL THEN 'Root mandate from ' || issuer
			ELSE 'Delegated by ' || issuer || ' · depth ' || depth END
		FROM mandates WHERE id IN (SELECT id FROM down) ORDER BY 1`).Scan(t.Context(), &revoked))
	require.Equal(t, shown, revoked, "what was revoked is what was highlighted")
	require.Contains(t, revoked, "review-web: Delegated by code-web · depth 1", delegated)
	c.requireAdminAPIOnly()
}

// TestConsoleIssuesAndReplacesRootMandates: Ana issues ops-web a root
// mandate with the scope and limit she typed, and it shows under her;
// then she replaces code-web's root, revoking the old one after the
// confirmation names what it takes down, and code-web's calls under the
// old one are refused.
func TestConsoleIssuesAndReplacesRootMandates(t *testing.T) {
	c, _ := mandateTreeBoard(t)
	p := c.signIn(ana, "Ana Approver")
	p.Goto(c.public + "/console/mandates")
	p.ExpectText("Review the copy")

	p.Click("button", "Issue a root mandate…")
	p.Fill("Agent", "ops-web")
	p.Fill("Scope", "task.read@project:web")
	p.Fill("Limits", "cost_usd=5")
	p.Click("button", "Issue mandate")
	p.ExpectText("Issued a root mandate to ops-web")
	var issued int
	require.NoError(t, c.d.NewRaw(`SELECT count(*) FROM mandates WHERE holder = 'ops-web' AND issuer = 'ana' AND parent_id IS NULL
		AND scope = '{task.read@project:web}' AND (limits->>'cost_usd')::numeric = 5 AND revoked_at IS NULL`).Scan(t.Context(), &issued))
	require.Equal(t, 1, issued, "the mandate Ana typed, issued by her")
	mine := p.Text(`section[aria-label="Mandates issued by ana"]`)
	require.Contains(t, mine, "ops-web", "the new root shows under the person who issued it")
	require.Contains(t, mine, "0 of 5 used")

	p.ClickIn(`article[aria-label="code-web, root mandate"]`, "Root mandate from owner", "button", "Replace…")
	p.Click("checkbox", "Revoke the old mandate and everything under it now")
	p.ExpectText("2 mandates would be revoked")
	c.agent.ok("pact_list", map[string]any{"mandate_id": c.root}) // not yet
	p.ClickIn(`article[aria-label="code-web, root mandate"]`, "Root mandate from owner", "button", "Replace mandate")
	p.ClickIn("dialog", "This cannot be undone.", "button", "Replace and revoke")
	p.ExpectText("Replaced code-web's mandate")

	refusal, refused := c.agent.call("pact_list", map[string]any{"mandate_id": c.root})
	require.True(t, refused, "the old root authorizes nothing")
	require.Equal(t, "mandate_revoked", refusal["error"])
	var now struct {
		Root   string `bun:"root_mandate_id"`
		Issuer string `bun:"issuer"`
	}
	require.NoError(t, c.d.NewRaw(`SELECT a.root_mandate_id, m.issuer FROM agents a JOIN mandates m ON m.id = a.root_mandate_id
		WHERE a.id = 'code-web' AND m.revoked_at IS NULL`).Scan(t.Context(), &now))
	require.NotEqual(t, c.root, now.Root)
	require.Equal(t, "ana", now.Issuer, "code-web now works under the root Ana issued")
	c.requireAdminAPIOnly()
}
