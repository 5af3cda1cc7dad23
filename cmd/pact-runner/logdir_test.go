package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

// SEC-019: the runner's log directory is the user's own. Without
// PACT_RUNNER_LOG_DIR it is $XDG_STATE_HOME/pact-runner, else
// ~/.local/state/pact-runner (a relative XDG_STATE_HOME is ignored), never
// the shared temporary directory, and it is created mode 0700.
func TestRunnerKeepsItsLogsInAPerUserStateDirectory(t *testing.T) {
	base := t.TempDir()
	conn := map[string]string{"PACT_URL": "http://127.0.0.1:1", "PACT_TOKEN": "pact_x", "PACT_AGENT_ID": "runner-web",
		"PACT_RUNNER_COMMAND": "true"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": filepath.Join(base, "state"), "HOME": filepath.Join(base, "home1")},
			filepath.Join(base, "state", "pact-runner")},
		{"HOME", map[string]string{"HOME": filepath.Join(base, "home2")}, filepath.Join(base, "home2", ".local", "state", "pact-runner")},
		{"RelativeXDGIsIgnored", map[string]string{"XDG_STATE_HOME": "state", "HOME": filepath.Join(base, "home3")},
			filepath.Join(base, "home3", ".local", "state", "pact-runner")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range conn {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			cfg, err := loadConfig(nil, getenv(env), &logtest.Buffer{})
			require.NoError(t, err)
			require.Equal(t, tc.want, cfg.LogDir)
			require.False(t, strings.HasPrefix(cfg.LogDir, os.TempDir()+"/pact-runner"), "not the shared temporary directory")
			st, err := os.Lstat(cfg.LogDir)
			require.NoError(t, err, "the runner creates it at start")
			require.True(t, st.IsDir())
			require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
		})
	}
}

// SEC-019: a log directory that another user owns is refused at start,
// set explicitly or found at the default place, naming the path and the
// owner; nothing is claimed or run. Making a directory another user's
// needs root (CI runs the tests as root).
func TestRunnerRefusesALogDirectoryOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: this test must chown a directory to nobody (uid 65534), which only root can; " +
			"TestRunnerRefusesALogDirectoryOpenToOthers still checks the mode")
	}
	w := newWorld(t)
	id := w.post("Never run", "runner-web", nil)
	mark := filepath.Join(w.dir, "ran")
	cmd := "echo ran > " + mark
	theirs := func(dir string) {
		require.NoError(t, os.MkdirAll(dir, 0o700))
		require.NoError(t, os.Chmod(dir, 0o700))
		require.NoError(t, os.Chown(dir, 65534, 65534))
	}
	explicit := filepath.Join(w.dir, "theirs")
	theirs(explicit)
	env := w.env("runner-web", cmd, "PACT_RUNNER_LOG_DIR", explicit)
	_, err := w.runOnce(env)
	require.Error(t, err, "a directory another user owns is refused")
	require.ErrorContains(t, err, "log directory "+explicit+" is owned by ")
	require.ErrorContains(t, err, "uid 65534")
	require.ErrorContains(t, err, "set PACT_RUNNER_LOG_DIR to a directory of your own with mode 0700")

	state := filepath.Join(w.dir, "state")
	theirs(filepath.Join(state, "pact-runner"))
	env = w.env("runner-web", cmd, "XDG_STATE_HOME", state)
	delete(env, "PACT_RUNNER_LOG_DIR")
	_, err = w.runOnce(env)
	require.Error(t, err, "the default directory, made first by another user, is refused too")
	require.ErrorContains(t, err, "log directory "+filepath.Join(state, "pact-runner")+" is owned by ")

	require.Equal(t, "submitted", w.status(id), "nothing was claimed")
	require.NoFileExists(t, mark, "nothing ran")
}

// SEC-019: a log directory with any group or other permission bit is
// refused at start, naming the path, the mode and the fix; nothing is
// claimed or run. So is a symbolic link in its place.
func TestRunnerRefusesALogDirectoryOpenToOthers(t *testing.T) {
	w := newWorld(t)
	id := w.post("Never run", "runner-web", nil)
	mark := filepath.Join(w.dir, "ran")
	cmd := "echo ran > " + mark
	for _, mode := range []os.FileMode{0o777, 0o750, 0o701} {
		dir := filepath.Join(w.dir, fmt.Sprintf("shared-%o", mode))
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.Chmod(dir, mode))
		_, err := w.runOnce(w.env("runner-web", cmd, "PACT_RUNNER_LOG_DIR", dir))
		require.Error(t, err, "mode %o is refused", mode)
		require.ErrorContains(t, err, fmt.Sprintf("log directory %s has mode %04o", dir, mode))
		require.ErrorContains(t, err, "run chmod 700 "+dir)
	}

	real := filepath.Join(w.dir, "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	link := filepath.Join(w.dir, "link")
	require.NoError(t, os.Symlink(real, link))
	_, err := w.runOnce(w.env("runner-web", cmd, "PACT_RUNNER_LOG_DIR", link))
	require.ErrorContains(t, err, "log directory "+link+" is a symbolic link")

	require.Equal(t, "submitted", w.status(id), "nothing was claimed")
	require.NoFileExists(t, mark, "nothing ran")
}

// SEC-019: the runner opens nothing in its log directory through a
// symbolic link. A subtasks file that is a link to a file elsewhere is
// refused: no subtask is posted and the task is reported failed saying
// why. A link planted where the run's log goes is replaced, never written
// through.
func TestRunnerFollowsNoSymlinkInItsLogDirectory(t *testing.T) {
	w := newWorld(t)
	w.runnerAgent("worker-web", 50)
	id := w.post("Job", "runner-web", nil)
	elsewhere := filepath.Join(w.dir, "elsewhere.jsonl")
	require.NoError(t, os.WriteFile(elsewhere, []byte(`{"title":"Injected","body":"not the command's","worker":"worker-web"}`+"\n"), 0o600))
	victim := filepath.Join(w.dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep me\n"), 0o600))
	logs := filepath.Join(w.dir, "logs-runner-web")
	require.NoError(t, os.Mkdir(logs, 0o700))
	require.NoError(t, os.Symlink(victim, filepath.Join(logs, id+".log")))

	cmd := `ln -s '` + elsewhere + `' "$PACT_SUBTASKS_FILE"; echo did`
	// A short wait, so that a runner that posts the subtask ends soon.
	log, err := w.runOnce(w.env("runner-web", cmd, "PACT_RUNNER_WORKERS", "worker-web", "PACT_RUNNER_MAX_WAIT_HOURS", "0.0003"))
	require.NoError(t, err, log)
	require.Zero(t, w.Count(`SELECT count(*) FROM tasks WHERE parent_task_id = ?`, id), "no subtask was posted through the link")
	require.Equal(t, "failed", w.status(id))
	require.Contains(t, w.result(id), "The subtasks file could not be read, so none was posted: ")
	require.Contains(t, w.result(id), id+".subtasks is a symbolic link")

	kept, err := os.ReadFile(victim)
	require.NoError(t, err)
	require.Equal(t, "keep me\n", string(kept), "the log was not written through the link")
	st, err := os.Lstat(filepath.Join(logs, id+".log"))
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular(), "the run's log is a file of its own")
	out, err := os.ReadFile(filepath.Join(logs, id+".log"))
	require.NoError(t, err)
	require.Equal(t, "did\n", string(out))
}
