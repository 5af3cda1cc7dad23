package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/sdk/npmtest"
)

// remoteA2AAgent is testdata/a2aremote/agent.mjs running: a remote A2A
// agent on the official JavaScript SDK's server, one JSON line out per
// thing it does (its card's URL, each message it gets, each task it
// cancels).
type remoteA2AAgent struct {
	t      *testing.T
	cmd    *exec.Cmd
	logs   *logtest.Buffer // the board's, shown when a wait fails
	stderr *logtest.Buffer
	ended  chan struct{}

	mu    sync.Mutex
	lines []map[string]any
	taken map[int]bool
	wake  chan struct{}
}

// startRemoteA2AAgent runs the agent, taking token as its bearer token,
// and waits until it listens.
func startRemoteA2AAgent(t *testing.T, logs *logtest.Buffer, token string) *remoteA2AAgent {
	t.Helper()
	dir := installNodePackage(t, filepath.Join("testdata", "a2aremote"), "pact-a2a-remote",
		filepath.Join("express", "package.json"))
	body, err := os.ReadFile(filepath.Join("testdata", "a2aremote", "agent.mjs"))
	require.NoError(t, err)
	script := npmtest.WriteScript(t, dir, "agent", body)
	raw, err := json.Marshal(map[string]string{"token": token})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "agent.json")
	require.NoError(t, os.WriteFile(file, raw, 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	a := &remoteA2AAgent{t: t, cmd: exec.CommandContext(ctx, "node", script, file), logs: logs, stderr: &logtest.Buffer{},
		ended: make(chan struct{}), taken: map[int]bool{}, wake: make(chan struct{}, 1)}
	a.cmd.Dir, a.cmd.Stderr = dir, a.stderr
	stdout, err := a.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, a.cmd.Start())
	go func() {
		defer close(a.ended)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				line = map[string]any{"step": "not-json", "text": sc.Text()}
			}
			a.mu.Lock()
			a.lines = append(a.lines, line)
			a.mu.Unlock()
			select {
			case a.wake <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { cancel(); _ = a.cmd.Wait() })
	return a
}

// await is the first line of step that match accepts and no await took
// before; it fails the test, with the agent's stderr and the board's log,
// when none comes within 30 seconds.
func (a *remoteA2AAgent) await(step string, match func(map[string]any) bool) map[string]any {
	a.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		a.mu.Lock()
		for i, line := range a.lines {
			if !a.taken[i] && line["step"] == step && (match == nil || match(line)) {
				a.taken[i] = true
				a.mu.Unlock()
				return line
			}
		}
		a.mu.Unlock()
		select {
		case <-a.wake:
		case <-a.ended:
			a.t.Fatalf("the remote agent ended before %q:\n%s\nboard log:\n%s", step, a.stderr, a.logs)
		case <-deadline:
			a.t.Fatalf("the remote agent said no %q for 30 s (it said %v):\n%s\nboard log:\n%s", step, a.said(), a.stderr, a.logs)
		}
	}
}

// count is how many lines of step match accepts.
func (a *remoteA2AAgent) count(step string, match func(map[string]any) bool) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, line := range a.lines {
		if line["step"] == step && (match == nil || match(line)) {
			n++
		}
	}
	return n
}

func (a *remoteA2AAgent) said() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]any(nil), a.lines...)
}

// stop ends the agent as a SIGTERM does, and waits for it.
func (a *remoteA2AAgent) stop() {
	a.t.Helper()
	require.NoError(a.t, a.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-a.ended:
	case <-time.After(10 * time.Second):
		a.t.Fatalf("the remote agent did not stop within 10 s:\n%s", a.stderr)
	}
}

// forTask matches a line about the board task id (the message's metadata
// names it).
func forTask(id string) func(map[string]any) bool {
	return func(line map[string]any) bool { return dig(line, "metadata", "pactTaskId") == id }
}

// remoteBoard is a board with its person's Admin API token.
type remoteBoard struct {
	t     *testing.T
	base  string
	token string
	logs  *logtest.Buffer
}

// admin calls the Admin API as the person; it returns the status and the
// JSON answer.
func (b *remoteBoard) admin(method, path string, body any) (int, map[string]any) {
	b.t.Helper()
	raw := ""
	if body != nil {
		raw = mustMarshal(b.t, body)
	}
	return adminCall(b.t, b.base, b.token, method, path, raw)
}

// until reads task id over the Admin API every 100 ms until ok accepts it,
// and returns it; it fails the test after within.
func (b *remoteBoard) until(id string, within time.Duration, what string, ok func(task map[string]any) bool) map[string]any {
	b.t.Helper()
	deadline := time.Now().Add(within)
	for {
		status, out := b.admin(http.MethodGet, "/tasks/"+id, nil)
		require.Equal(b.t, http.StatusOK, status, "%v", out)
		task, _ := out["task"].(map[string]any)
		if ok(task) {
			return task
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("task %s is not %s after %s: %v\nboard log:\n%s", id, what, within, task, b.logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hasStatus is a check for until: the task's status is s.
func hasStatus(s string) func(map[string]any) bool {
	return func(task map[string]any) bool { return task["status"] == s }
}

// taskResult is a closed task's result text, and its Handoff.
func taskResult(t *testing.T, task map[string]any) (text, handoff string) {
	t.Helper()
	result, ok := task["result"].(map[string]any)
	require.True(t, ok, "the result is an object: %v", task["result"])
	text, _ = result["text"].(string)
	handoff, _ = result["handoff"].(string)
	return text, handoff
}

// closedCard is a card URL on loopback that nobody listens on.
func closedCard(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return fmt.Sprintf("http://%s/.well-known/agent-card.json", addr)
}
