package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
)

// TestConsolePagesPassAxe: axe-core finds no serious or critical
// violation on any page of the console (the sign-in screen, Needs you,
// Tasks, a task, Pacts, a pact) at desktop and phone widths. With -update
// it writes their screenshots to docs/console/.
func TestConsolePagesPassAxe(t *testing.T) {
	t.Parallel() // a console journey: two run at once (docs/console-testing.md)
	requireEveryRouteChecked(t)
	c := startConsoleBoard(t)
	task, pact := c.fill()
	c.stall("code-web", "code-web stopped hearing of “Launch”: https://hooks.example.com/pact did not accept 5 deliveries. Wake it once it is fixed.")
	check := func(p *browsertest.Page, name string) {
		t.Helper()
		for _, size := range []struct {
			kind          string
			width, height int
		}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
			p.Resize(size.width, size.height)
			require.Empty(t, browsertest.Serious(p.Axe()), "%s at %d px", name, size.width)
			if *update {
				p.Screenshot(filepath.Join("..", "..", "docs", "console", name+"-"+size.kind+".png"))
			}
		}
	}
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Join("..", "..", "docs", "console"), 0o755))
	}

	out := c.page(1280, 800)
	out.Goto(c.public + "/console/")
	out.ExpectText("Sign in to see what needs you.")
	check(out, "signin")

	p := c.signIn(ana, "Ana Approver")
	for _, pg := range consolePages(task, pact) {
		p.Resize(1280, 800)
		p.Goto(c.public + pg.path)
		p.ExpectText(pg.heading)
		switch pg.name {
		case "needs-you":
			p.ExpectText("Which region should the database live in?")
		case "tasks", "task":
			p.ExpectText("Ship the release")
		case "pacts", "pact":
			p.ExpectText("Launch")
		case "notifications":
			p.ExpectText("Pick the region")
		case "projects":
			p.ExpectText("Notes of Web")
		case "project":
			p.ExpectText("House style")
		case "roles":
			p.ExpectText("Secretary")
		case "log":
			// Verification runs chain by chain behind a progress bar
			// and ends with each chain's verdict.
			p.Click("button", "Verify")
			p.ExpectText("chains are intact.")
		}
		check(p, pg.name)
	}

	// The New pact dialog, its prefix checked as typed, and a pact with a
	// seat of the person's own (post, zone, handshake) and a long purpose.
	p.Resize(1280, 800)
	p.Goto(c.public + "/console/pacts")
	p.Click("button", "New pact")
	p.Fill("Name", "Checkout")
	p.Fill("Your prefix", "cw")
	p.ExpectText("Use 1 to 4 capital letters")
	check(p, "new-pact")
	p.Resize(1280, 800)
	p.Press("Escape")
	c.startPact(p, "Checkout", longPurpose, "code-web")
	p.ExpectText("Your seat @ana")
	check(p, "pact-yours")
	c.requireAdminAPIOnly()
}

// requireAdminAPIOnly checks every request the test's pages made: to the
// board only the console's own files, its session routes and operations
// of the Admin API as docs/openapi.json describes them; elsewhere only
// the provider's sign-in pages, as page loads.
func (c *consoleBoard) requireAdminAPIOnly() {
	c.t.Helper()
	ops := adminOperations(c.t)
	calls := 0
	for _, p := range c.pages {
		for _, r := range p.Requests() {
			if strings.HasPrefix(r.URL, c.public+"/admin/api/") {
				calls++
			}
			u, err := url.Parse(r.URL)
			require.NoError(c.t, err)
			if strings.HasPrefix(r.URL, c.op.Issuer+"/") {
				require.True(c.t, r.Navigation, "the console calls the provider only by sending the person there: %s %s", r.Method, r.URL)
				continue
			}
			require.Equal(c.t, c.public, u.Scheme+"://"+u.Host, "a request to another site: %s %s", r.Method, r.URL)
			require.True(c.t, consoleRequest(ops, r.Method, u.Path), "not the console's files, session or the Admin API: %s %s", r.Method, u.Path)
		}
	}
	require.NotZero(c.t, calls, "the console read the board through the Admin API, and the log saw it")
}

// consoleRequest tells whether method and path are the console's own
// (static files, session, sign-in) or an operation of the Admin API.
func consoleRequest(ops map[string][]*regexp.Regexp, method, path string) bool {
	switch {
	case method == http.MethodGet && (path == "/console/" || strings.HasPrefix(path, "/console/assets/")):
		return true
	case method == http.MethodGet && strings.HasPrefix(path, "/console/") && !strings.HasPrefix(path, "/console/auth/") &&
		path != "/console/session" && !strings.Contains(path[len("/console/"):], "."):
		return true // one of the console's own routes, answered with index.html
	case path == "/console/session" || strings.HasPrefix(path, "/console/auth/"):
		return true
	}
	return slices.ContainsFunc(ops[method], func(re *regexp.Regexp) bool { return re.MatchString(path) })
}

// adminOperations reads docs/openapi.json: each method's paths, as
// patterns whose {parameters} match one segment.
func adminOperations(t *testing.T) map[string][]*regexp.Regexp {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.json"))
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	param := regexp.MustCompile(`\\\{[^}]+\\\}`)
	ops := map[string][]*regexp.Regexp{}
	for path, methods := range doc.Paths {
		require.True(t, strings.HasPrefix(path, "/admin/api/"), path)
		re := regexp.MustCompile("^" + param.ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "$")
		for m := range methods {
			ops[strings.ToUpper(m)] = append(ops[strings.ToUpper(m)], re)
		}
	}
	return ops
}
