package board_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
)

const (
	// readWarning is what the remote worker logs when it cannot read the
	// work of remote agents; followWarning when a following fails.
	readWarning   = "remote A2A agents: read their work"
	followWarning = "remote A2A agent: follow a task"
)

// remoteLogWorld is configWorld logging warnings into logs, with the
// remote agents named (agent id, then its card's server) driven from
// loopback.
func remoteLogWorld(t *testing.T, logs *logtest.Buffer, remotes ...any) *world {
	t.Helper()
	w := configWorld(t, kerneltest.Options{Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Warn})}, nil)
	for i := 0; i+1 < len(remotes); i += 2 {
		id, srv := remotes[i].(string), remotes[i+1].(*httptest.Server)
		w.agent(id, "a2a-remote", nil, "web")
		w.Exec(`INSERT INTO a2a_remotes (agent_id, org_id, card_url, set_by) VALUES (?, 'default', ?, 'ana')`,
			id, srv.URL+a2a.CardPath)
	}
	w.board.DriveRemotes(time.Minute, 100*time.Millisecond)
	return w
}

// followWarnings are the lines of logs that warn of a failed following of
// task.
func followWarnings(logs *logtest.Buffer, task string) []string {
	var out []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, followWarning) && strings.Contains(line, "task="+task) {
			out = append(out, line)
		}
	}
	return out
}

// The remote worker warns an operator of a following that failed, naming
// the agent, the task and why (here the remote refused its card with
// 401, and the task failed with it), and of nothing else: a following
// that ends in a report (a remote that completed its task) logs no
// warning, and neither do the worker's rounds that read the remote
// agents' work without trouble.
func TestTheRemoteWorkerWarnsOnlyOfAFollowingThatFailed(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "who are you?", http.StatusUnauthorized)
	}))
	t.Cleanup(refusing.Close)
	done := newFlakyRemote(t, 0)
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-ok", done.Server, "remote-no", refusing)
	stop := runKernelUntil(t, w.Kernel)
	ok := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-ok"})
	refused := w.post("code-web", "web", "Paint the shed", map[string]any{"delegate_to": "remote-no"})
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed'`, ok) == 1 &&
			w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'failed'`, refused) == 1
	}, 30*time.Second, 20*time.Millisecond, "one remote did its task, the other refused it")
	require.Eventually(t, func() bool { return len(followWarnings(logs, refused)) > 0 },
		20*time.Second, 20*time.Millisecond, "the failed following is logged: %s", logs.String())
	stop() // every following has ended, and logged what it would
	line := followWarnings(logs, refused)[0]
	require.Contains(t, line, "[WARN]")
	require.Contains(t, line, "agent=remote-no")
	require.Contains(t, line, "401")
	require.Empty(t, followWarnings(logs, ok), "a following that reported its task logs nothing")
	require.NotContains(t, logs.String(), readWarning, "rounds that read the work without trouble log nothing")
}

// The remote worker warns an operator when it cannot read the work of
// remote agents (here their table is gone), with the database's error,
// while the board runs; the round after tries again.
func TestTheRemoteWorkerWarnsWhenItCannotReadRemoteWork(t *testing.T) {
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs)
	w.Exec(`ALTER TABLE a2a_remotes RENAME TO a2a_remotes_gone`)
	runKernel(t, w.Kernel)
	require.Eventually(t, func() bool { return logs.Contains(readWarning) },
		20*time.Second, 20*time.Millisecond, "the failed read is logged while the board runs: %s", logs.String())
	line := logs.Line(readWarning)
	require.Contains(t, line, "[WARN]")
	require.Contains(t, line, "a2a_remotes")
}

// A board that stops while it follows a remote task warns of nothing: the
// following ends because the board stops (its lease left to run out, or
// released, for another board to take over), which is no failure of the
// remote's, the database's or the agent's.
func TestTheRemoteWorkerWarnsOfNothingWhenTheBoardStops(t *testing.T) {
	remote := newSlowRemote(t)
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-web", remote.Server)
	stop := runKernelUntil(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool { return remote.gets.Load() > 0 },
		20*time.Second, 20*time.Millisecond, "the board sent the task and follows it")
	stop()
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, task),
		"the task was still followed when the board stopped")
	require.Empty(t, followWarnings(logs, task), "a following the board's stop ended logs nothing")
	require.NotContains(t, logs.String(), readWarning)
}
