package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An existing .mcp.json keeps every other key and server, in its order,
// and its stricter mode; a looser one is tightened to 600.
func TestExistingMCPJSONIsMergedNotClobbered(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	mcpFile := filepath.Join(m.dir, ".mcp.json")
	before := `{
  "mcpServers": {
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ghp_x"}},
    "files": {"command": "npx", "args": ["-y", "fs-mcp", "."], "env": {"N": 1.50}}
  },
  "zeta": [1, 2.0, {"a": null}]
}`
	require.NoError(t, os.WriteFile(mcpFile, []byte(before), 0o644))
	rc, out, errOut := m.connect("--dir", m.dir, b.URL, b.hire(t, `{"role": "code", "project": "web"}`))
	require.Equal(t, 0, rc, errOut)
	after, err := os.ReadFile(mcpFile)
	require.NoError(t, err)
	require.Contains(t, string(after), `"env": {
        "N": 1.50
      }`, "numbers are kept as written")
	got := readJSON(t, mcpFile)
	old := readJSONText(t, before)
	require.Equal(t, old["zeta"], got["zeta"])
	servers := got["mcpServers"].(map[string]any)
	require.Equal(t, old["mcpServers"].(map[string]any)["github"], servers["github"])
	require.Equal(t, old["mcpServers"].(map[string]any)["files"], servers["files"])
	require.Less(t, strings.Index(string(after), `"github"`), strings.Index(string(after), `"files"`))
	require.Less(t, strings.Index(string(after), `"files"`), strings.Index(string(after), `"pact"`), "the new server comes last")
	require.Less(t, strings.Index(string(after), `"mcpServers"`), strings.Index(string(after), `"zeta"`))
	require.Equal(t, b.URL+"/mcp/a/code-web", servers["pact"].(map[string]any)["url"])
	requireMode(t, mcpFile, 0o600)
	require.Contains(t, out, "wrote "+mcpFile)

	// A file already stricter than 600 keeps its mode.
	require.NoError(t, os.Chmod(mcpFile, 0o400))
	code := b.Admin("ana", "POST", "/agents/code-web/setup-code", "").Body["code"].(string)
	rc, out, errOut = m.connect(b.URL, code)
	require.Equal(t, 0, rc, errOut)
	requireMode(t, mcpFile, 0o400)
	require.Contains(t, out, "wrote "+mcpFile+` (MCP server "pact", mode 400)`)
}

// Another agent's entry of the same name is refused without --force, and
// nothing is written; with --force it is replaced; --name keeps both.
func TestAnotherAgentsEntryIsRefusedWithoutForce(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	rc, _, errOut := m.connect(b.URL, b.hire(t, `{"role": "code", "project": "web"}`))
	require.Equal(t, 0, rc, errOut)
	mcpFile := filepath.Join(m.dir, ".mcp.json")
	before, err := os.ReadFile(mcpFile)
	require.NoError(t, err)
	files := m.files(t)

	rc, out, errOut := m.connect(b.URL, b.hire(t, `{"role": "code", "project": "api"}`))
	require.Equal(t, 1, rc)
	require.Empty(t, out)
	require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
	require.Contains(t, errOut, `already has MCP server "pact" for `+b.URL+"/mcp/a/code-web")
	require.Contains(t, errOut, "--force")
	require.Contains(t, errOut, "POST /admin/api/agents/code-api/setup-code")
	after, err := os.ReadFile(mcpFile)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after))
	require.Equal(t, files, m.files(t), "nothing was written, not even code-api's env file")

	code := b.Admin("ana", "POST", "/agents/code-api/setup-code", "").Body["code"].(string)
	rc, _, errOut = m.connect(b.URL, code, "--force")
	require.Equal(t, 0, rc, errOut)
	servers := readJSON(t, mcpFile)["mcpServers"].(map[string]any)
	require.Len(t, servers, 1)
	require.Equal(t, b.URL+"/mcp/a/code-api", servers["pact"].(map[string]any)["url"])
	requireMode(t, filepath.Join(m.home, ".config", "pact", "code-api.env"), 0o600)

	code = b.Admin("ana", "POST", "/agents/code-web/setup-code", "").Body["code"].(string)
	rc, _, errOut = m.connect("--name", "pact-web", b.URL, code)
	require.Equal(t, 0, rc, errOut)
	servers = readJSON(t, mcpFile)["mcpServers"].(map[string]any)
	require.Equal(t, b.URL+"/mcp/a/code-api", servers["pact"].(map[string]any)["url"])
	require.Equal(t, b.URL+"/mcp/a/code-web", servers["pact-web"].(map[string]any)["url"])
}

// --dry-run prints what would be written, tokens and secret settings
// masked, and writes nothing.
func TestDryRunWritesNothing(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	rc, out, errOut := m.connect(b.URL, b.hire(t, `{"role": "code", "project": "web"}`), "--dry-run")
	require.Equal(t, 0, rc, errOut)
	require.Empty(t, m.files(t), "nothing written, no directory created")
	require.Contains(t, out, "would write "+filepath.Join(m.dir, ".mcp.json")+" (MCP server \"pact\", mode 600, a new file)")
	require.Contains(t, out, "would write "+filepath.Join(m.home, ".config", "pact", "code-web.env"))
	require.Regexp(t, `"Authorization":"Bearer pact_…[A-Za-z0-9_-]{4}"`, out)
	require.Regexp(t, `\n  PACT_TOKEN=pact_…[A-Za-z0-9_-]{4}\n`, out)
	require.Contains(t, out, "this setup code is now used")
	require.NotRegexp(t, `pact_[A-Za-z0-9_-]{10}`, out, "the token is masked")

	got := b.Admin("ana", "PUT", "/roles/dbrunner", `{"name": "DB", "client": "runner", "actions": ["task.work"],
		"settings": {"DATABASE_URL": "postgres://u:s3cret@db/x"}}`)
	require.Equal(t, 200, got.Status, got.Raw)
	rc, out, errOut = m.connect("--dry-run", b.URL, b.hire(t, `{"role": "dbrunner", "project": "web"}`))
	require.Equal(t, 0, rc, errOut)
	require.Contains(t, out, "  DATABASE_URL=[REDACTED]\n")
	require.NotContains(t, out, "s3cret")
	require.Empty(t, m.files(t))
}

// A used code and an expired code get the one line saying what to do,
// exit 1, and write nothing.
func TestUsedOrExpiredCodeIsOneLineAndWritesNothing(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	code := b.hire(t, `{"role": "code", "project": "web"}`)
	rc, _, errOut := m.connect(b.URL, code, "--dir", t.TempDir()) // spends it elsewhere
	require.Equal(t, 0, rc, errOut)
	require.NoError(t, os.RemoveAll(filepath.Join(m.home, ".config")))

	want := "pact-connect: " + refusedCode + "\n"
	require.Contains(t, want, "POST /admin/api/agents/hire")
	rc, out, errOut := m.connect(b.URL, code)
	require.Equal(t, 1, rc)
	require.Equal(t, want, errOut, "used")
	require.Empty(t, out)
	require.Empty(t, m.files(t))

	code = b.hire(t, `{"role": "code", "project": "api"}`)
	b.skew.Store(int64(16 * time.Minute)) // codes last 15 minutes
	rc, out, errOut = m.connect(b.URL, code)
	require.Equal(t, 1, rc)
	require.Equal(t, want, errOut, "expired")
	require.Empty(t, out)
	require.Empty(t, m.files(t))

	rc, _, errOut = m.connect(b.URL, "pcs_unknown")
	require.Equal(t, 1, rc)
	require.Equal(t, want, errOut, "unknown")
}

// Mistakes found before the code is sent, and a board that cannot be
// reached, are one line naming what to fix.
func TestBadInputAndUnreachableBoardAreOneLine(t *testing.T) {
	m := newMachine(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	for _, tc := range []struct {
		args []string
		rc   int
		says string
	}{
		{[]string{down, "pcs_abc"}, 1, "cannot reach the board at " + down + " ("},
		{[]string{"http://board.example.com", "pcs_abc"}, 1, "plain http to another machine"},
		{[]string{"board.example.com", "pcs_abc"}, 1, "is not an http(s) URL"},
		{[]string{down, "pact_abc"}, 1, "a setup code starts with pcs_"},
		{[]string{down, "pcs_abc", "--dir", filepath.Join(m.dir, "nope")}, 1, "is not a directory"},
		{[]string{down}, 2, "expected <board-url> <setup-code>"},
		{[]string{down, "pcs_abc", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{down, "pcs_abc", "--name", "a b"}, 2, "--name"},
	} {
		rc, out, errOut := m.connect(tc.args...)
		require.Equal(t, tc.rc, rc, "%v: %s", tc.args, errOut)
		require.Empty(t, out)
		require.True(t, strings.HasPrefix(errOut, "pact-connect: "), errOut)
		require.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
		require.Contains(t, errOut, tc.says)
	}
	require.Empty(t, m.files(t))
}

// --help prints the usage docs/pact-connect.md shows, and exits 0.
func TestHelpMatchesTheDocs(t *testing.T) {
	rc, out, _ := newMachine(t).connect("--help")
	require.Equal(t, 0, rc)
	require.Equal(t, usage, out)
	doc, err := os.ReadFile("../../docs/pact-connect.md")
	require.NoError(t, err)
	require.Contains(t, string(doc), "```text\n"+usage+"```", "docs/pact-connect.md shows pact-connect --help")
}

// An env file's quoted value spanning lines is one variable when merging.
func TestMergeEnvKeepsOtherLines(t *testing.T) {
	old := "# mine\nexport PACT_TOKEN=old\nPACT_RUNNER_SCHEDULE='[\n{\"a\": 1}]'\nX=\"a # b\" # note\nPACT_TOKEN=dup\n"
	got := mergeEnv(old, []setting{{"PACT_TOKEN", "pact_new"}, {"PACT_RUNNER_SCHEDULE", "it's"}, {"PACT_URL", "https://b"}}, "# new")
	require.Equal(t, "# mine\nPACT_TOKEN=pact_new\nPACT_RUNNER_SCHEDULE='it'\"'\"'s'\nX=\"a # b\" # note\nPACT_URL=https://b\n", got)
}

func readJSONText(t *testing.T, text string) map[string]any {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.json")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return readJSON(t, p)
}
