package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --channel adds the pact-channel MCP server to the .mcp.json it writes,
// naming the agent and holding no token, and its last line is the command
// that loads the channel (docs/hooks.md).
func TestChannelWritesThePactChannelServer(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	mcpFile := filepath.Join(m.dir, ".mcp.json")
	require.NoError(t, os.WriteFile(mcpFile, []byte(`{"mcpServers": {"docs": {"command": "docs-mcp"}}}`), 0o600))
	rc, out, errOut := m.connect("--channel", b.URL, b.hire(t, `{"role": "code", "project": "web"}`))
	require.Equal(t, 0, rc, errOut)

	raw, err := os.ReadFile(mcpFile)
	require.NoError(t, err)
	servers := readJSON(t, mcpFile)["mcpServers"].(map[string]any)
	require.Equal(t, map[string]any{"command": "pact-channel", "env": map[string]any{"PACT_AGENT_ID": "code-web"}}, servers["pact-channel"])
	require.Equal(t, map[string]any{"command": "docs-mcp"}, servers["docs"], "other servers kept")
	token := strings.TrimPrefix(servers["pact"].(map[string]any)["headers"].(map[string]any)["Authorization"].(string), "Bearer ")
	require.Equal(t, 1, strings.Count(string(raw), token), "the token only in the pact entry")
	requireMode(t, mcpFile, 0o600)
	_, err = os.Stat(filepath.Join(m.dir, ".claude"))
	require.ErrorIs(t, err, os.ErrNotExist, "no rewake hook with the channel")

	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	require.Contains(t, last, "claude --dangerously-load-development-channels server:pact-channel")
	require.Contains(t, last, "research preview")
}

// --rewake writes the async Stop hook into .claude/settings.local.json,
// merged with what is there; connecting again replaces it, never doubles it.
func TestRewakeWritesTheAsyncStopHook(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	settings := filepath.Join(m.dir, ".claude", "settings.local.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	require.NoError(t, os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [
		{"hooks": [{"type": "command", "command": "$HOME/.config/pact/pact-hook.sh code-web stop", "timeout": 10}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}`), 0o644))
	code := b.hire(t, `{"role": "code", "project": "web"}`)
	for range 2 {
		rc, out, errOut := m.connect("--rewake", b.URL, code)
		require.Equal(t, 0, rc, errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Contains(t, lines[len(lines)-1], "$HOME/.config/pact/pact-hook.sh code-web rewake")
		code = b.Admin("ana", "POST", "/agents/code-web/setup-code", "").Body["code"].(string) // connecting again
	}
	got := readJSON(t, settings)
	require.Equal(t, map[string]any{"allow": []any{"Bash(ls)"}}, got["permissions"])
	hooks := got["hooks"].(map[string]any)
	require.Len(t, hooks["SessionStart"], 1)
	stop := hooks["Stop"].([]any)
	require.Len(t, stop, 2, "the board's stop hook kept, one rewake hook")
	require.Equal(t, map[string]any{"hooks": []any{map[string]any{"type": "command",
		"command": "$HOME/.config/pact/pact-hook.sh code-web rewake", "async": true, "asyncRewake": true, "timeout": float64(86400)}}}, stop[1])
	requireMode(t, settings, 0o600)
	servers := readJSON(t, filepath.Join(m.dir, ".mcp.json"))["mcpServers"].(map[string]any)
	require.NotContains(t, servers, "pact-channel", "no channel with the rewake hook")
}

// --channel and --rewake together are refused with one line, before the
// code is spent.
func TestChannelAndRewakeAreExclusive(t *testing.T) {
	b, m := newRealBoard(t), newMachine(t)
	code := b.hire(t, `{"role": "code", "project": "web"}`)
	rc, out, errOut := m.connect("--channel", "--rewake", b.URL, code)
	require.Equal(t, exitUsage, rc)
	require.Empty(t, out)
	require.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	require.Contains(t, errOut, "use either the channel or the rewake hook, never both")
	require.Empty(t, m.files(t), "nothing written")
	rc, _, errOut = m.connect("--rewake", b.URL, code)
	require.Equal(t, 0, rc, "the code was not spent: %s", errOut)
}
