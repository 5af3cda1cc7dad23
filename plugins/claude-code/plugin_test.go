// Package claudecode_test checks the Claude Code plugin and marketplace of
// the repository (plugins/claude-code/pact-board, .claude-plugin at the
// root) with the real Claude Code CLI, offline (docs/hooks.md, "The Claude
// Code plugin").
package claudecode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/claudecode"
)

const (
	root   = "../.."
	plugin = "pact-board"
)

var pluginDir = filepath.Join(root, "plugins", "claude-code", plugin)

// The CLI accepts both manifests: `claude plugin validate` exits 0 and
// says the validation passed, for the marketplace at the repository's root
// and for the plugin.
func TestClaudeCodeValidatesThePluginAndTheMarketplace(t *testing.T) {
	bin := claudecode.Install(t)
	home := t.TempDir()
	for _, dir := range []string{root, pluginDir} {
		abs, err := filepath.Abs(dir)
		require.NoError(t, err)
		out := claudecode.Run(t, bin, home, t.TempDir(), "plugin", "validate", abs)
		require.Contains(t, out, "Validation passed", out)
		require.NotContains(t, out, "Validation failed", out)
	}
	abs, _ := filepath.Abs(pluginDir)
	out := claudecode.Run(t, bin, home, t.TempDir(), "plugin", "validate", abs)
	for _, event := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"} {
		require.Regexp(t, regexp.MustCompile(`hooks: `+event+` .*pact-hook\.sh`), out, "the plugin provides the %s hook", event)
	}
	require.Contains(t, out, "mcpServers: pact-channel stdio pact-channel")
}

// `claude plugin marketplace add <checkout>` adds the marketplace from
// the checkout and `claude plugin install pact-board@pact-board` installs
// the plugin, offline, in an empty home: the installed copy holds the
// hooks, the channel's MCP server and the same hook script as hooks/.
func TestClaudeCodeInstallsThePluginFromTheCheckout(t *testing.T) {
	bin := claudecode.Install(t)
	home, work := t.TempDir(), t.TempDir()
	checkout, err := filepath.Abs(root)
	require.NoError(t, err)
	out := claudecode.Run(t, bin, home, work, "plugin", "marketplace", "add", checkout)
	require.Contains(t, out, "Successfully added marketplace: "+plugin)
	out = claudecode.Run(t, bin, home, work, "plugin", "install", plugin+"@"+plugin)
	require.Contains(t, out, "Successfully installed plugin: "+plugin+"@"+plugin)
	out = claudecode.Run(t, bin, home, work, "plugin", "list")
	require.Regexp(t, `(?s)`+plugin+`@`+plugin+`\s+Version: 0\.1\.0.*enabled`, out)

	scripts, err := filepath.Glob(filepath.Join(home, ".claude", "plugins", "cache", plugin, plugin, "*", "hooks", "pact-hook.sh"))
	require.NoError(t, err)
	require.Len(t, scripts, 1, "the installed copy of the plugin")
	installed, err := os.ReadFile(scripts[0])
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(root, "hooks", "pact-hook.sh"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, installed), "the installed plugin runs the repository's hook script")
	mcp := readJSON(t, filepath.Join(filepath.Dir(filepath.Dir(scripts[0])), ".mcp.json"))
	require.Equal(t, "pact-channel", mcp["mcpServers"].(map[string]any)["pact-channel"].(map[string]any)["command"])
}

// The plugin's script is hooks/pact-hook.sh, byte for byte (a plugin is
// installed as a copy of its own directory, so it carries its own), its
// four hooks are the board's four events, each run through that script
// with the agent from $PACT_AGENT_ID, and its channel server names the
// agent the same way and holds no token.
func TestThePluginRunsTheBoardsHooks(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(root, "hooks", "pact-hook.sh"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(pluginDir, "hooks", "pact-hook.sh"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "cp hooks/pact-hook.sh %s/hooks/", pluginDir)

	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	raw, err := os.ReadFile(filepath.Join(pluginDir, "hooks", "hooks.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &cfg))
	events := map[string]string{"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit",
		"PostToolUse": "post-tool-use", "Stop": "stop"}
	var names []string
	for name, groups := range cfg.Hooks {
		names = append(names, name)
		require.Len(t, groups, 1, name)
		require.Len(t, groups[0].Hooks, 1, name)
		require.Equal(t, `sh "${CLAUDE_PLUGIN_ROOT}/hooks/pact-hook.sh" "${PACT_AGENT_ID:-}" `+events[name], groups[0].Hooks[0].Command)
	}
	sort.Strings(names)
	require.Equal(t, []string{"PostToolUse", "SessionStart", "Stop", "UserPromptSubmit"}, names)

	mcp := readJSON(t, filepath.Join(pluginDir, ".mcp.json"))
	require.Equal(t, map[string]any{"pact-channel": map[string]any{"command": "pact-channel",
		"env": map[string]any{"PACT_AGENT_ID": "${PACT_AGENT_ID:-}"}}}, mcp["mcpServers"])
	require.False(t, strings.Contains(string(raw), "PACT_TOKEN"), "no token in the plugin")
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
	return out
}
