package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

// A command asks for subtasks in PACT_SUBTASKS_FILE: the runner posts each
// to a worker of PACT_RUNNER_WORKERS as a subtask of its task, with an
// equal share of the turns the run left, waits for them while it keeps
// its claim, and reports the task with their results.
func TestRunnerPostsSubtasksToWorkersAndWaits(t *testing.T) {
	w := newWorld(t)
	w.runnerAgent("worker-web", 50)
	id := w.post("Big job", "runner-web", map[string]any{"child_limits": map[string]float64{"runs": 1, "turns": 10}})
	parent := `printf '{"title":"Part A","body":"do A"}\n\n{"title":"Part B","body":"do B","worker":"worker-web"}\n' > "$PACT_SUBTASKS_FILE"
printf 'split in two\nPACT_TURNS=4\n\n## Handoff\n- Done: split\n'`
	worker := `echo "worker did $PACT_TASK_TITLE ($PACT_TASK_BODY) in $PACT_MAX_TURNS turns"`
	s := w.start(w.env("runner-web", parent, "PACT_RUNNER_WORKERS", "worker-{project}", "PACT_RUNNER_HEARTBEAT_SECONDS", "0.2"))
	posted := func() int {
		return w.Count(`SELECT count(*) FROM tasks WHERE parent_task_id = ? AND delegate_to = 'worker-web'`, id)
	}
	// Or the task is reported without them: then say so now, not after
	// eventually's bound.
	eventually(t, "the subtasks are posted", func() bool {
		st := w.status(id)
		return posted() == 2 || (st != "submitted" && st != "working")
	}, s.log)
	require.Equal(t, 2, posted(), "both subtasks are posted to worker-web: %s", s.log)
	require.Equal(t, "working", w.status(id), "the task waits for its subtasks")
	ws := w.start(w.env("worker-web", worker))
	eventually(t, "the task is reported", func() bool { return w.status(id) != "working" }, s.log)
	require.Equal(t, "completed", w.status(id), s.log.String()+ws.log.String())
	res := w.result(id)
	for _, want := range []string{"worker did Part A (do A) in 3 turns", "worker did Part B (do B) in 3 turns", "### Part A (worker-web, task "} {
		require.Contains(t, res, want)
	}
	require.True(t, strings.HasPrefix(res, "split in two\nPACT_TURNS=4\n\n## Subtasks\n"), res)
	require.Less(t, strings.Index(res, "### Part B"), strings.Index(res, "## Handoff\n- Done: split"), res)
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM tasks WHERE parent_task_id = ? AND status = 'completed'`, id))
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM tasks t JOIN mandates m ON m.id = t.delegated_mandate_id
		WHERE t.parent_task_id = ? AND (m.limits->>'turns')::float8 = 3`, id), "each subtask got (10 - 4) / 2 turns")
	require.Contains(t, s.log.String(), "heartbeat")
}

// A subtask to an agent not among PACT_RUNNER_WORKERS is not posted, and
// the task is reported failed saying why.
func TestRunnerRefusesSubtasksToOtherAgents(t *testing.T) {
	w := newWorld(t)
	id := w.post("Job", "runner-web", nil)
	cmd := `echo '{"title":"Part","worker":"code-web"}' > "$PACT_SUBTASKS_FILE"; echo did`
	log, err := w.runOnce(w.env("runner-web", cmd, "PACT_RUNNER_WORKERS", "worker-{project}"))
	require.NoError(t, err, log)
	require.Equal(t, "failed", w.status(id))
	require.Contains(t, w.result(id), "### Part: not posted\n\nworker code-web is not one of PACT_RUNNER_WORKERS (worker-web)")
	require.Zero(t, w.Count(`SELECT count(*) FROM tasks WHERE parent_task_id = ?`, id))
}

// The runner waits for subtasks at most PACT_RUNNER_MAX_WAIT_HOURS (on its
// clock, which here moves 40 minutes each time it is read): then it
// reports the task failed, naming the subtask not finished.
func TestRunnerWaitsForSubtasksAtMostMaxWait(t *testing.T) {
	w := newWorld(t)
	w.runnerAgent("worker-web", 50)
	id := w.post("Job", "runner-web", nil)
	w.onceHurried(`echo '{"title":"Never done"}' > "$PACT_SUBTASKS_FILE"; echo did`)
	require.Equal(t, "failed", w.status(id))
	require.Contains(t, w.result(id), ": not finished\n\nIt was not done within PACT_RUNNER_MAX_WAIT_HOURS (1h0m0s)")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE parent_task_id = ? AND status = 'submitted'`, id))
}

// onceHurried runs runner-web once with command, worker-web its worker
// and PACT_RUNNER_MAX_WAIT_HOURS 1, on a clock that moves 40 minutes each
// time it is read, so that a wait for subtasks ends at once; it returns
// the runner's log.
func (w *world) onceHurried(command string) *logtest.Buffer {
	w.T.Helper()
	cfg, err := loadConfig([]string{"--once"}, getenv(w.env("runner-web", command, "PACT_RUNNER_WORKERS", "worker-web",
		"PACT_RUNNER_MAX_WAIT_HOURS", "1")), &logtest.Buffer{})
	require.NoError(w.T, err)
	var ticks atomic.Int64
	cfg.now = func() time.Time {
		return time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local).Add(time.Duration(ticks.Add(1)) * 40 * time.Minute)
	}
	log := &logtest.Buffer{}
	require.NoError(w.T, newRunner(cfg, newLogger(cfg, log)).serve(context.Background()), log.String())
	return log
}

// Each subtask gets an equal share of the turns the run left, rounded
// down, and none is posted when that share is less than one turn: a share
// of exactly one is posted, a share of none is refused saying why.
func TestRunnerSharesOnlyTheTurnsLeft(t *testing.T) {
	w := newWorld(t)
	w.runnerAgent("worker-web", 50)
	split := `printf '{"title":"Part A"}\n{"title":"Part B"}\n' > "$PACT_SUBTASKS_FILE"; echo PACT_TURNS=1`

	// 3 turns, 1 used, 2 subtasks: one turn each. The wait for them is cut
	// short by a clock that moves 40 minutes each time it is read.
	one := w.post("One turn each", "runner-web", map[string]any{"child_limits": map[string]float64{"runs": 1, "turns": 3}})
	log := w.onceHurried(split)
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM tasks t JOIN mandates m ON m.id = t.delegated_mandate_id
		WHERE t.parent_task_id = ? AND (m.limits->>'turns')::float8 = 1`, one), "(3 - 1) / 2 = 1 turn each: %s", log)
	require.NotContains(t, w.result(one), "no turns left to share")

	// 2 turns, 1 used, 2 subtasks: no whole turn each, so none is posted.
	none := w.post("No turn each", "runner-web", map[string]any{"child_limits": map[string]float64{"runs": 1, "turns": 2}})
	out, err := w.runOnce(w.env("runner-web", split, "PACT_RUNNER_WORKERS", "worker-web"))
	require.NoError(t, err, out)
	require.Equal(t, "failed", w.status(none))
	require.Contains(t, w.result(none), "### Part A: not posted\n\nno turns left to share (1 of 2 used)")
	require.Zero(t, w.Count(`SELECT count(*) FROM tasks WHERE parent_task_id = ?`, none))
}

// A subtask's result is shown as its text when it is a string, as
// "(no result)" when it has none, and as its JSON otherwise.
func TestASubtasksResultIsShownAsText(t *testing.T) {
	for raw, want := range map[string]string{
		`"done, see the PR"`:    "done, see the PR",
		``:                      "(no result)",
		`null`:                  "(no result)",
		`{"handoff":"## Done"}`: `{"handoff":"## Done"}`,
	} {
		require.Equal(t, want, resultText(json.RawMessage(raw)), "result %q", raw)
	}
}
