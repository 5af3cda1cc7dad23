package board_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHookScriptAgainstARealBoard runs hooks/pact-hook.sh, the script
// Claude Code runs, with each event's JSON on its stdin against a real
// board: silent unconfigured, unreachable or after a tool use with nothing
// to hand over; the board's answer otherwise; the clean-tree rule of
// auto-claim computed from real git working trees (docs/hooks.md).
func TestHookScriptAgainstARealBoard(t *testing.T) {
	for _, tool := range []string{"sh", "curl", "git"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "the hook script needs %s (make test installs it)", tool)
	}
	w := newWorld(t)
	w.agent("gemini-two", "gemini", nil, "web")
	script, err := filepath.Abs("../../hooks/pact-hook.sh")
	require.NoError(t, err)
	hookDir := filepath.Join(t.TempDir(), "pact")
	require.NoError(t, os.MkdirAll(hookDir, 0o700))
	configure := func(agent string, lines ...string) {
		require.NoError(t, os.WriteFile(filepath.Join(hookDir, agent+".env"), []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	}
	gitInit := func(dir string) string {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return dir
	}
	run := func(dir, agent, event, stdin string) map[string]any {
		t.Helper()
		cmd := exec.Command("sh", script, agent, event)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "PACT_HOOK_DIR="+hookDir)
		out, err := cmd.Output()
		require.NoError(t, err, "the script exits 0 whatever happens")
		if len(strings.TrimSpace(string(out))) == 0 {
			return nil
		}
		var answer map[string]any
		require.NoError(t, json.Unmarshal(out, &answer), "%s", out)
		return answer
	}
	repo := gitInit(filepath.Join(t.TempDir(), "repo"))
	prompt := `{"session_id": "s1", "permission_mode": "default", "prompt": "hi"}`

	require.Nil(t, run(repo, "code-web", "stop", `{"session_id": "s1"}`), "unconfigured: silent")
	configure("code-web", "PACT_URL=http://127.0.0.1:1", "PACT_TOKEN="+w.Token("code-web"))
	require.Nil(t, run(repo, "code-web", "stop", `{"session_id": "s1"}`), "the board unreachable: silent")

	configure("code-web", "PACT_URL="+w.URL+"/", `PACT_TOKEN="`+w.Token("code-web")+`"`, "PACT_AUTO_CLAIM=1",
		"PACT_AUTO_CLAIM_FROM='chat-web'")
	docs := w.post("chat-web", "web", "Write the docs", map[string]any{"delegate_to": "code-web"})
	require.Contains(t, run(repo, "code-web", "session-start", `{"session_id": "s1"}`)["systemMessage"],
		"PACT: 1 open task(s) for code-web")
	require.Equal(t, map[string]any{}, run(repo, "code-web", "stop", `{"session_id": "s1"}`))
	require.Nil(t, run(repo, "code-web", "post-tool-use", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`),
		"after a tool use the script prints only what is handed to Claude")

	require.NoError(t, os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("draft"), 0o644))
	require.Contains(t, run(repo, "code-web", "user-prompt-submit", prompt)["systemMessage"],
		"the working tree has uncommitted or staged changes")
	require.NoError(t, os.Remove(filepath.Join(repo, "notes.txt")))
	answer := run(repo, "code-web", "user-prompt-submit", prompt)
	require.Equal(t, "PACT: claimed 'Write the docs' from chat-web for code-web.", answer["systemMessage"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND assignee = 'code-web'`, docs))

	w.OK("chat-web", "pact_message", map[string]any{"task_id": docs, "mandate_id": w.Root("chat-web"), "to": "code-web", "body": "Thanks"})
	answer = run(repo, "code-web", "post-tool-use", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
	require.Contains(t, answer["hookSpecificOutput"].(map[string]any)["additionalContext"], "Thanks")

	// A folder that is no repository is clean only when it holds
	// repositories and every one of them is clean.
	configure("gemini-two", "PACT_URL="+w.URL, "PACT_TOKEN="+w.Token("gemini-two"), "PACT_AUTO_CLAIM=1", "PACT_AUTO_CLAIM_FROM=chat-web")
	w.post("chat-web", "web", "Review", map[string]any{"delegate_to": "gemini-two"})
	folder := t.TempDir()
	dirty := "the working tree has uncommitted or staged changes"
	require.Contains(t, run(folder, "gemini-two", "user-prompt-submit", prompt)["systemMessage"], dirty, "no repository in it")
	gitInit(filepath.Join(folder, "a"))
	gitInit(filepath.Join(folder, "b"))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "b", "x"), []byte("x"), 0o644))
	require.Contains(t, run(folder, "gemini-two", "user-prompt-submit", prompt)["systemMessage"], dirty, "one repository is dirty")
	require.NoError(t, os.Remove(filepath.Join(folder, "b", "x")))
	require.Contains(t, run(folder, "gemini-two", "user-prompt-submit", prompt)["systemMessage"], "PACT: claimed 'Review'")

	// A refused token says so, except after a tool use.
	configure("code-web", "PACT_URL="+w.URL, "PACT_TOKEN=pact_not-a-live-token")
	require.Equal(t, "PACT: the board refused this hook (HTTP 401); check PACT_URL and PACT_TOKEN in code-web.env",
		run(repo, "code-web", "stop", `{"session_id": "s1"}`)["systemMessage"])
	require.Nil(t, run(repo, "code-web", "post-tool-use", `{"tool_name": "Bash"}`))
	w.VerifyLog()
}
