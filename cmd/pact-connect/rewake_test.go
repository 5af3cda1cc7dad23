package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/modules/pacts"
)

// rewakeBoard is a board with tasks and pacts whose held calls wake on
// commits (the events hub), code-web and chat-web in project web, and a
// pact of chat-web's that code-web joined. It returns the pact's id.
func rewakeBoard(t *testing.T) (*kerneltest.World, string) {
	t.Helper()
	w := kerneltest.New(t, kerneltest.Options{Events: true}, board.New(), pacts.New(pacts.Options{}))
	w.Office()
	for _, id := range []string{"code-web", "chat-web"} {
		w.Agent("ana", kerneltest.AgentInput{ID: id, Client: "code", Projects: []string{"web"}, Delegations: ptr(3)})
	}
	out := w.OK("chat-web", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Launch", "purpose": "Ship it",
		"mandate_id": w.Root("chat-web"), "prefix": "C", "invite": []any{map[string]any{"key": "@code-web", "prefix": "K"}}})
	id := out["pact_id"].(string)
	w.OK("code-web", pacts.ToolJoin, map[string]any{"pact_id": id, "mandate_id": w.Root("code-web")})
	return w, id
}

func ptr[T any](v T) *T { return &v }

// hookScript is hooks/pact-hook.sh, the script Claude Code runs.
func hookScript(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"sh", "curl", "awk", "mkfifo"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "the hook script needs %s (make test installs it)", tool)
	}
	script, err := filepath.Abs("../../hooks/pact-hook.sh")
	require.NoError(t, err)
	return script
}

// rewakeRun is one rewake hook, started: Wait waits for its exit.
type rewakeRun struct {
	cmd    *exec.Cmd
	stderr logtest.Buffer
	stdout logtest.Buffer
	done   chan error
}

func startRewake(t *testing.T, script, hookDir, agent, session string) *rewakeRun {
	t.Helper()
	r := &rewakeRun{done: make(chan error, 1)}
	r.cmd = exec.Command("sh", script, agent, "rewake")
	r.cmd.Stdin = strings.NewReader(`{"session_id": "` + session + `", "hook_event_name": "Stop"}`)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	r.cmd.Env = append(os.Environ(), "PACT_HOOK_DIR="+hookDir, "PACT_AGENT_ID=")
	// Claude Code reads the hook's output to the end: a child left
	// holding it would show as a Wait that never returns.
	r.cmd.WaitDelay = 10 * time.Second
	require.NoError(t, r.cmd.Start())
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Signal(syscall.SIGTERM) // as the next Stop hook ends it
		select {
		case <-r.done:
		case <-time.After(5 * time.Second):
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// exit waits at most d for the hook's exit status; -1 when it still runs.
func (r *rewakeRun) exit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case err := <-r.done:
		r.done <- err // Cleanup waits on it too
		require.NotErrorIs(t, err, exec.ErrWaitDelay, "a child of the hook kept its output open")
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(d):
		return -1
	}
}

// waitListening waits until the hook holds both its connections: the
// stream has saved its head, and the agent is recorded as listening
// (pact_events held).
func waitListening(t *testing.T, w *kerneltest.World, hookDir, agent string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		raw, _ := os.ReadFile(filepath.Join(hookDir, agent+".rewake"))
		if strings.Contains(string(raw), "stream=") && !strings.Contains(string(raw), "stream=\n") &&
			w.Count(`SELECT count(*) FROM agent_presence WHERE agent_id = ? AND listening_until > now()`, agent) == 1 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the rewake hook of %s never held both connections", agent)
}

// TestRewakeHookWakesTheSessionWithTheNextEvent runs hooks/pact-hook.sh in
// rewake mode, as Claude Code runs an async Stop hook, against a real
// board: it exits 2 with the next pact message (who wrote in which pact,
// and how to read it whole) on stderr, then with a task delegated to the
// agent, then with a message on that task; a new hook never tells again
// what an earlier one told, and the first run ever starts from now
// (docs/hooks.md, "The rewake hook"; HOOK-003).
func TestRewakeHookWakesTheSessionWithTheNextEvent(t *testing.T) {
	script := hookScript(t)
	w, pact := rewakeBoard(t)
	hookDir := filepath.Join(t.TempDir(), "pact")
	require.NoError(t, os.MkdirAll(hookDir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(hookDir, "code-web.env"),
		[]byte("PACT_URL="+w.URL+"/\nPACT_TOKEN="+w.Token("code-web")+"\n"), 0o600))

	// Older than the first run: never told.
	w.OK("chat-web", pacts.ToolPost, map[string]any{"pact_id": pact, "body": "Old news", "mandate_id": w.Root("chat-web")})
	w.OK("chat-web", "pact_post", map[string]any{"project_id": "web", "title": "Old task", "delegate_to": "code-web",
		"mandate_id": w.Root("chat-web")})

	r := startRewake(t, script, hookDir, "code-web", "s1")
	waitListening(t, w, hookDir, "code-web")
	require.Equal(t, -1, r.exit(t, 500*time.Millisecond), "nothing new: it waits; stderr: %s", r.stderr.String())
	require.Empty(t, r.stderr.String())
	st, err := os.Stat(filepath.Join(hookDir, "code-web.rewake"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the state file is the owner's")

	body := "Ready for review: " + strings.Repeat("y", 600)
	w.OK("chat-web", pacts.ToolPost, map[string]any{"pact_id": pact, "body": body, "mandate_id": w.Root("chat-web")})
	require.Equal(t, 2, r.exit(t, 10*time.Second), "a pact message wakes the session; stderr: %s", r.stderr.String())
	told := r.stderr.String()
	require.Contains(t, told, `PACT: chat-web wrote in pact "Launch" (C-002`)
	require.Contains(t, told, "Ready for review: "+strings.Repeat("y", 382), "the first 400 characters")
	require.NotContains(t, told, strings.Repeat("y", 383))
	require.Contains(t, told, `Read it whole: get_pact {"pact_id": "`+pact+`", "since": `)
	require.NotContains(t, told, "Old news")
	require.Empty(t, r.stdout.String())

	// The next hook starts after what the session was told: the same
	// message never wakes it again; a delegated task does. (No agent
	// argument, no PACT_AGENT_ID: the one env file of the hook directory
	// names it, as for the plugin's hooks.)
	r = startRewake(t, script, hookDir, "", "s1")
	waitListening(t, w, hookDir, "code-web")
	require.Equal(t, -1, r.exit(t, time.Second), "nothing new since; stderr: %s", r.stderr.String())
	task := w.OK("chat-web", "pact_post", map[string]any{"project_id": "web", "title": "Write the docs", "body": "All of them",
		"delegate_to": "code-web", "mandate_id": w.Root("chat-web")})["task_id"].(string)
	require.Equal(t, 2, r.exit(t, 10*time.Second), "a delegated task wakes the session; stderr: %s", r.stderr.String())
	told = r.stderr.String()
	require.Contains(t, told, "PACT: chat-web delegated task 'Write the docs' ("+task+", project web) to code-web: All of them")
	require.NotContains(t, told, "Old task")

	// And a message to the agent on that task.
	r = startRewake(t, script, hookDir, "code-web", "s1")
	waitListening(t, w, hookDir, "code-web")
	require.Equal(t, -1, r.exit(t, time.Second), "the task was told; stderr: %s", r.stderr.String())
	w.OK("chat-web", "pact_message", map[string]any{"task_id": task, "to": "code-web", "body": "Start with the API <docs> & more",
		"mandate_id": w.Root("chat-web")})
	require.Equal(t, 2, r.exit(t, 10*time.Second), "a message on a task wakes the session; stderr: %s", r.stderr.String())
	require.Contains(t, r.stderr.String(), "PACT: chat-web wrote to code-web on task 'Write the docs' ("+task+"): Start with the API <docs> & more")

	// That message stays unread (the hooks mark messages read when they
	// hand them over): the next hook still waits for something new. Its
	// pact_events answers at once with that message (so the hook waits
	// out the call's 50 seconds before asking again), while the stream
	// holds.
	r = startRewake(t, script, hookDir, "code-web", "s1")
	require.Equal(t, -1, r.exit(t, 3*time.Second), "a told message never wakes it again; stderr: %s", r.stderr.String())
	w.OK("chat-web", pacts.ToolPost, map[string]any{"pact_id": pact, "body": "One more", "mandate_id": w.Root("chat-web")})
	require.Equal(t, 2, r.exit(t, 10*time.Second), "stderr: %s", r.stderr.String())
	require.Contains(t, r.stderr.String(), "One more")

	// One waiter per session: a new Stop hook ends the one before, which
	// says nothing, so an event wakes the session once. Another session
	// of the agent keeps its own.
	first := startRewake(t, script, hookDir, "code-web", "s1")
	other := startRewake(t, script, hookDir, "code-web", "s2")
	time.Sleep(3 * time.Second) // both hold the stream (the unread message keeps pact_events from holding)
	second := startRewake(t, script, hookDir, "code-web", "s1")
	require.Equal(t, 0, first.exit(t, 10*time.Second), "the earlier waiter of s1 ends; stderr: %s", first.stderr.String())
	require.Empty(t, first.stderr.String()+first.stdout.String())
	require.Equal(t, -1, other.exit(t, time.Second), "s2's waiter holds on")
	require.Equal(t, -1, second.exit(t, time.Second), "stderr: %s", second.stderr.String())
	w.OK("chat-web", pacts.ToolPost, map[string]any{"pact_id": pact, "body": "Last", "mandate_id": w.Root("chat-web")})
	require.Equal(t, 2, second.exit(t, 10*time.Second), "stderr: %s", second.stderr.String())
	require.Contains(t, second.stderr.String(), "Last")
	w.VerifyLog()
}

// TestRewakeHookIsQuietWithoutABoard: unconfigured, with a token the board
// refuses, or with the board unreachable, the rewake hook exits 0 and says
// nothing, after a bounded retry (a hook never stops a session).
func TestRewakeHookIsQuietWithoutABoard(t *testing.T) {
	script := hookScript(t)
	hookDir := filepath.Join(t.TempDir(), "pact")
	require.NoError(t, os.MkdirAll(hookDir, 0o700))
	run := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", script, "code-web", "rewake")
		cmd.Stdin = strings.NewReader(`{"session_id": "s1"}`)
		cmd.Env = append(os.Environ(), "PACT_HOOK_DIR="+hookDir)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "%s: exit 0; stderr: %s", what, stderr.String())
		require.Empty(t, stdout.String()+stderr.String(), what)
	}
	run("unconfigured")
	w, _ := rewakeBoard(t)
	require.NoError(t, os.WriteFile(filepath.Join(hookDir, "code-web.env"),
		[]byte("PACT_URL="+w.URL+"\nPACT_TOKEN=pact_not-a-live-token\n"), 0o600))
	run("a refused token")
	require.NoError(t, os.WriteFile(filepath.Join(hookDir, "code-web.env"),
		[]byte("PACT_URL=http://127.0.0.1:1\nPACT_TOKEN="+w.Token("code-web")+"\n"), 0o600))
	run("the board unreachable")
	entries, err := os.ReadDir(hookDir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing left behind but the env file")
}
