package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/modules/notes"
)

// TestMain runs the tests; with PACT_RUNNER_AS_MAIN=1 the test binary is
// pact-runner itself (main, with the arguments it was given), so a test
// can run the command as a person or Claude Code's hook does
// (main_test.go).
func TestMain(m *testing.M) {
	if os.Getenv("PACT_RUNNER_AS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	kerneltest.Main(m)
}

// world is a real board (the board and mandates modules on kerneltest's
// World, over real PostgreSQL and MCP): the Office, code-web, and the
// runner agent runner-web (runs 50, turns 2000, 2 delegations).
type world struct {
	*kerneltest.World
	dir string // a directory for the commands' files
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{World: kerneltest.New(t, kerneltest.Options{Events: true}, board.New(), mandates.New(), notes.New()), dir: t.TempDir()}
	w.Office()
	w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}, Delegations: ptr(3)})
	w.runnerAgent("runner-web", 50)
	return w
}

func (w *world) runnerAgent(id string, runs float64) {
	w.Agent("ana", kerneltest.AgentInput{ID: id, Client: "runner", Projects: []string{"web"},
		Limits: map[string]float64{"runs": runs, "turns": 2000}, Delegations: ptr(2)})
}

// post posts a task as code-web in web, delegated to runner when it is not
// "", with the extra arguments, and returns its id.
func (w *world) post(title, runner string, extra map[string]any) string {
	w.T.Helper()
	args := map[string]any{"project_id": "web", "title": title, "body": "Body of " + title, "mandate_id": w.Root("code-web")}
	if runner != "" {
		args["delegate_to"] = runner
	}
	for k, v := range extra {
		args[k] = v
	}
	return w.OK("code-web", "pact_post", args)["task_id"].(string)
}

// env is a runner's environment for agent with command, plus more.
func (w *world) env(agent, command string, more ...string) map[string]string {
	e := map[string]string{"PACT_URL": w.URL, "PACT_TOKEN": w.Token(agent), "PACT_AGENT_ID": agent,
		"PACT_RUNNER_COMMAND": command, "PACT_RUNNER_LOG_DIR": filepath.Join(w.dir, "logs-"+agent),
		"PACT_LOG_LEVEL": "debug"}
	for i := 0; i+1 < len(more); i += 2 {
		e[more[i]] = more[i+1]
	}
	return e
}

// started is a runner run in the background.
type started struct {
	cancel context.CancelFunc
	done   chan error
	log    *logtest.Buffer
}

// start runs the runner with env and args until stop or its own end.
func (w *world) start(env map[string]string, args ...string) *started {
	ctx, cancel := context.WithCancel(context.Background())
	s := &started{cancel: cancel, done: make(chan error, 1), log: &logtest.Buffer{}}
	go func() { s.done <- run(ctx, args, getenv(env), s.log) }()
	w.T.Cleanup(func() { cancel(); <-s.done })
	return s
}

// wait is what run returned; the deadline only keeps a broken runner from
// hanging the test.
func (s *started) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(2 * time.Minute):
		t.Fatalf("the runner did not return; its log:\n%s", s.log)
		return nil
	}
}

// waitWithin is what run returned, failing the test when the runner did
// not return within d.
func (s *started) waitWithin(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(d):
		t.Fatalf("the runner did not return within %s; its log:\n%s", d, s.log)
		return nil
	}
}

// stop cancels the runner's context (SIGTERM) and returns what run did.
func (s *started) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	return s.wait(t)
}

// runOnce runs the runner with --once and returns its log and error.
func (w *world) runOnce(env map[string]string) (string, error) {
	var log logtest.Buffer
	err := run(context.Background(), []string{"--once"}, getenv(env), &log)
	return log.String(), err
}

func getenv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// eventually polls cond until it holds; the deadline only keeps a broken
// runner from hanging the test.
func eventually(t *testing.T, what string, cond func() bool, log *logtest.Buffer) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s; the runner's log:\n%s", what, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *world) status(task string) string {
	w.T.Helper()
	var s string
	require.NoError(w.T, w.DB.NewRaw(`SELECT status FROM tasks WHERE id = ?`, task).Scan(context.Background(), &s))
	return s
}

func (w *world) result(task string) string {
	w.T.Helper()
	var s string
	require.NoError(w.T, w.DB.NewRaw(`SELECT coalesce(result #>> '{}', '') FROM tasks WHERE id = ?`, task).Scan(context.Background(), &s))
	return s
}

// used is what mandate m has spent of limit key.
func (w *world) used(m, key string) float64 {
	w.T.Helper()
	var u float64
	require.NoError(w.T, w.DB.NewRaw(`SELECT coalesce(sum(used), 0)::float8 FROM limit_usage WHERE mandate_id = ? AND limit_key = ?`,
		m, key).Scan(context.Background(), &u))
	return u
}

func (w *world) file(name string) string {
	b, err := os.ReadFile(filepath.Join(w.dir, name))
	if err != nil {
		return ""
	}
	return string(b)
}

func (w *world) listening(agent string) bool {
	return w.Count(`SELECT count(*) FROM agent_presence WHERE agent_id = ? AND listening_until > now()`, agent) == 1
}

func ptr[T any](v T) *T { return &v }

// requireNoPolling fails unless runner-web, run as s, calls pact_events at
// most once in the next 2 seconds: it waits in the call, or between
// calls, rather than polling.
func (w *world) requireNoPolling(s *started) {
	w.T.Helper()
	calls := func() int {
		return w.Count(`SELECT count(*) FROM entries WHERE agent_id = 'runner-web' AND action = 'pact_events'`)
	}
	before := calls()
	time.Sleep(2 * time.Second)
	require.LessOrEqual(w.T, calls()-before, 1, "the runner waits instead of polling: %s", s.log)
}
