package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Three runners of one project share 200 open tasks, posted before and
// while they run: each task runs exactly once (every command appends the
// task's id to one file), every task is completed by the runner that ran
// it, and the log verifies.
func TestRunnersNeverRunATaskTwice(t *testing.T) {
	w := newWorld(t)
	runners := []string{"runner-web-1", "runner-web-2", "runner-web-3"}
	for _, r := range runners {
		w.runnerAgent(r, 200)
	}
	const n = 200
	ids := map[string]bool{}
	for i := range n / 2 {
		ids[w.post(fmt.Sprintf("Open %d", i), "", nil)] = true
	}
	cmd := fmt.Sprintf(`echo "$PACT_TASK_ID $PACT_AGENT_ID" | tee -a %s/runs`, w.dir)
	var started []*started
	for _, r := range runners {
		started = append(started, w.start(w.env(r, cmd, "PACT_RUNNER_TAKE_OPEN", "1", "PACT_RUNNER_MAX_RUNS_PER_DAY", "0",
			"PACT_LOG_LEVEL", "info")))
	}
	for i := n / 2; i < n; i++ {
		ids[w.post(fmt.Sprintf("Open %d", i), "", nil)] = true
	}
	eventually(t, "every task is closed", func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE status IN ('completed', 'failed')`) == n
	}, started[0].log)
	for _, s := range started {
		require.NoError(t, s.stop(t))
	}

	lines := strings.Split(strings.TrimSpace(w.file("runs")), "\n")
	ran := map[string]string{}
	for _, l := range lines {
		id, agent, ok := strings.Cut(l, " ")
		require.True(t, ok, l)
		require.True(t, ids[id], "an unknown task %s", id)
		require.Empty(t, ran[id], "task %s ran twice: by %s and %s", id, ran[id], agent)
		ran[id] = agent
	}
	require.Len(t, ran, n)
	require.Len(t, lines, n)
	require.Equal(t, n, w.Count(`SELECT count(*) FROM tasks WHERE status = 'completed'`))
	for id, agent := range ran {
		require.True(t, strings.HasPrefix(w.result(id), id+" "+agent+"\n"), "task %s reported by %s: %s", id, agent, w.result(id))
	}
	w.VerifyLog()
}
