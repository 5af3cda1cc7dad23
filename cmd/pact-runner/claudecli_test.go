package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/claudecode"
)

// TestTheRealClaudeCodeAcceptsTheRunsConfigAndFlags checks the runner's
// session against the pinned Claude Code CLI, offline: the run's MCP
// config, written as a trusted project's .mcp.json, passes `claude mcp
// list`'s health check against a real board (the board took the run's
// credential); and the exact arguments the runner passes, every optional
// flag included, are ones the CLI knows, its answer the JSON result the
// runner reads (not logged in here, so an error result) (RUNNER-008).
func TestTheRealClaudeCodeAcceptsTheRunsConfigAndFlags(t *testing.T) {
	w := newWorld(t)
	bin := claudecode.Install(t)
	posted := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Daily brief", "mandate_id": w.Root("code-web"),
		"delegate_to": "runner-web", "action": "task.work", "child_limits": map[string]any{"runs": 1, "usd": 3}})
	id, m := posted["task_id"].(string), posted["delegated_mandate_id"].(string)
	w.OK("runner-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": m})
	role := filepath.Join(t.TempDir(), "role.md")
	require.NoError(t, os.WriteFile(role, []byte("You write briefs."), 0o600))
	cfg := &config{URL: w.URL, Token: w.Token("runner-web"), AgentID: "runner-web", Claude: bin, Tools: splitList(defaultTools),
		RoleFile: role, Protected: []string{"main"}, RunTimeout: 10 * time.Minute, LogDir: filepath.Join(t.TempDir(), "logs")}
	r := newRunner(cfg, hclog.NewNullLogger())
	defer r.board.Close()
	task := taskView{ID: id, ProjectID: "web", Title: "Daily brief", Action: "report.brief"}
	s, err := r.openSession(context.Background(), task, m)
	require.NoError(t, err)
	defer s.Close()

	// claude mcp list reads .mcp.json of a trusted project whose servers
	// are enabled, and checks each server's health.
	home, project := t.TempDir(), t.TempDir()
	raw, err := os.ReadFile(s.mcpConfig)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(project, ".mcp.json"), raw, 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o700))
	local, _ := json.Marshal(map[string]any{"enableAllProjectMcpServers": true, "enabledMcpjsonServers": []string{mcpServerName}})
	require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "settings.local.json"), local, 0o600))
	trusted, _ := json.Marshal(map[string]any{"hasCompletedOnboarding": true, "projects": map[string]any{project: map[string]any{
		"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{mcpServerName}, "enableAllProjectMcpServers": true}}})
	for _, p := range []string{filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", ".claude.json")} {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, trusted, 0o600))
	}
	out := claudecode.Run(t, bin, home, project, "mcp", "list")
	t.Logf("claude mcp list:\n%s", out)
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), mcpServerName+":") {
			line = l
		}
	}
	require.Contains(t, line, w.URL+"/mcp/a/runner-web", out)
	require.Contains(t, line, "Connected", "the health check reached the board with the run's credential:\n%s", out)
	require.NotContains(t, line, "Failed", out)

	// The runner's arguments, every optional flag included.
	args := r.claudeArgs(s, task, 5, 1.5)
	for _, flag := range []string{"--append-system-prompt-file", "--max-budget-usd", "--json-schema", "--settings", "--strict-mcp-config"} {
		require.Contains(t, args, flag)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = project, claudecode.Env(t, home), strings.NewReader(prompt(task, "runner-web", 5))
	stdout, _ := cmd.Output()
	res := parseClaude(string(stdout))
	require.NotNil(t, res, "the CLI answered Claude Code's JSON result, not a usage error: %s", stdout)
	require.True(t, res.IsError, "offline and not logged in, the run is an error result")
}
