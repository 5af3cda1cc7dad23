package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

// TestAKilledRunnersTaskIsFinishedByAnother: kill -9 of a runner in the
// middle of a task leaves its claim to its lease; when the lease runs out
// the board puts the task back and another runner takes it and finishes
// it (docs/runner.md). The runner here is the built binary in a process of
// its own, so the kill is a real SIGKILL.
func TestAKilledRunnersTaskIsFinishedByAnother(t *testing.T) {
	w := newWorld(t)
	w.runnerAgent("runner-two", 50)
	bin := filepath.Join(t.TempDir(), "pact-runner")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	id := w.post("Long job", "", nil)

	first := exec.Command(bin)
	for k, v := range w.env("runner-web", "echo started >> "+filepath.Join(w.dir, "started")+"; sleep 20",
		"PACT_RUNNER_TAKE_OPEN", "1") {
		first.Env = append(first.Env, k+"="+v)
	}
	first.Env = append(first.Env, "PATH="+os.Getenv("PATH"), "HOME="+w.dir)
	var log logtest.Buffer
	first.Stdout, first.Stderr = &log, &log
	require.NoError(t, first.Start())
	t.Cleanup(func() { _ = first.Process.Kill(); _ = first.Wait() })
	eventually(t, "the first runner runs the task", func() bool {
		return w.file("started") != "" && w.status(id) == "working"
	}, &log)
	require.NoError(t, first.Process.Signal(syscall.SIGKILL))
	_ = first.Wait()
	require.Equal(t, "working", w.status(id), "a killed runner's claim stays until its lease runs out")

	second := w.start(w.env("runner-two", "echo finished by two", "PACT_RUNNER_TAKE_OPEN", "1"))
	// The lease runs out (PACT_STALE_MINUTES of silence), and any call on
	// the project puts the task back.
	w.Exec(`UPDATE task_activity SET at = now() - interval '31 minutes' WHERE task_id = ?`, id)
	w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})
	eventually(t, "the second runner finishes the task", func() bool { return w.status(id) == "completed" }, second.log)
	require.True(t, strings.HasPrefix(w.result(id), "finished by two\n"), w.result(id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'task.release_stale' AND task_id = ?`, id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_report' AND task_id = ?
		AND agent_id = 'runner-two' AND outcome = 'ok'`, id))
	require.Zero(t, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_report' AND task_id = ? AND agent_id = 'runner-web'`, id))
	w.VerifyLog()
}
