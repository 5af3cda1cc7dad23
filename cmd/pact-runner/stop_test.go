package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

// slowCommand writes its process group's id to <dir>/pid, then sleeps for
// seconds and writes <dir>/after: a run that is killed never writes it.
func slowCommand(dir string, seconds int) string {
	return fmt.Sprintf(`echo $$ > %[1]s/pid.tmp && mv %[1]s/pid.tmp %[1]s/pid
sleep %[2]d
echo finished
echo after > %[1]s/after`, dir, seconds)
}

// alive reports whether the process group in <dir>/pid has a live
// process left (a zombie, waiting for init to reap it, is not one).
func (w *world) alive() bool {
	pgid := strings.TrimSpace(w.file("pid"))
	_, err := strconv.Atoi(pgid)
	require.NoError(w.T, err)
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(w.T, err)
	for _, p := range stats {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == pgid && f[0] != "Z" {
			return true
		}
	}
	return false
}

// A person taking the claim away (the Admin API's release) makes the next
// heartbeat claim_lost: the runner kills the command and everything it
// started, and reports nothing over the task, which is open again.
func TestRunnerKillsTheRunOnClaimLost(t *testing.T) {
	w := newWorld(t)
	id := w.post("Long", "runner-web", nil)
	s := w.start(w.env("runner-web", slowCommand(w.dir, 60), "PACT_RUNNER_HEARTBEAT_SECONDS", "0.2"), "--once")
	eventually(t, "the command started", func() bool { return w.file("pid") != "" }, s.log)
	eventually(t, "a heartbeat", func() bool { return s.log.Contains("heartbeat") }, s.log)
	require.True(t, w.alive(), "the command runs")
	r := w.Admin("ana", "POST", "/tasks/"+id+"/release", "")
	require.Equal(t, 200, r.Status, r.Raw)
	require.NoError(t, s.wait(t))
	require.Contains(t, s.log.String(), "claim_lost")
	require.False(t, w.alive(), "the command's process group was killed")
	require.Empty(t, w.file("after"))
	require.Equal(t, "submitted", w.status(id))
	require.Empty(t, w.result(id), "the runner did not report over the released task")
	w.VerifyLog()
}

// On SIGTERM (its context ending) the runner lets the running task finish
// within the grace period and reports it as usual, then returns.
func TestRunnerFinishesTheTaskOnStop(t *testing.T) {
	w := newWorld(t)
	id := w.post("Short", "runner-web", nil)
	s := w.start(w.env("runner-web", slowCommand(w.dir, 1), "PACT_RUNNER_GRACE_SECONDS", "120"))
	eventually(t, "the command started", func() bool { return w.file("pid") != "" }, s.log)
	require.NoError(t, s.stop(t))
	require.Equal(t, "after\n", w.file("after"))
	require.Equal(t, "completed", w.status(id))
	require.True(t, strings.HasPrefix(w.result(id), "finished\n\n## Handoff"), w.result(id))
}

// A task still running when the grace period ends is killed and reported
// failed, with a Handoff saying the runner was stopped.
func TestRunnerReportsFailedWhenStoppedPastGrace(t *testing.T) {
	w := newWorld(t)
	id := w.post("Endless", "runner-web", nil)
	s := w.start(w.env("runner-web", slowCommand(w.dir, 60), "PACT_RUNNER_GRACE_SECONDS", "0.3"))
	eventually(t, "the command started", func() bool { return w.file("pid") != "" }, s.log)
	require.NoError(t, s.stop(t))
	require.False(t, w.alive())
	require.Empty(t, w.file("after"))
	require.Equal(t, "failed", w.status(id))
	res := w.result(id)
	require.Contains(t, res, "## Handoff")
	require.Contains(t, res, "killed: the runner was stopped and the run did not end within PACT_RUNNER_GRACE_SECONDS")
	kept, err := os.ReadFile(filepath.Join(w.dir, "logs-runner-web", id+".log"))
	require.NoError(t, err)
	require.Empty(t, string(kept), "the command printed nothing before it was killed")
}

// A run past PACT_RUNNER_RUN_TIMEOUT_MINUTES is killed and reported failed.
func TestRunnerKillsARunPastItsTimeout(t *testing.T) {
	w := newWorld(t)
	id := w.post("Too long", "runner-web", nil)
	log, err := w.runOnce(w.env("runner-web", slowCommand(w.dir, 60), "PACT_RUNNER_RUN_TIMEOUT_MINUTES", "0.01"))
	require.NoError(t, err, log)
	require.False(t, w.alive())
	require.Equal(t, "failed", w.status(id))
	require.Contains(t, w.result(id), "killed: it ran past PACT_RUNNER_RUN_TIMEOUT_MINUTES")
}

// A person canceling the task while it runs revokes its delegated mandate:
// the next heartbeat is refused, the runner kills the run, reports
// nothing, and carries on under its own root mandate with the next task.
func TestRunnerKillsTheRunOfACanceledTaskAndGoesOn(t *testing.T) {
	w := newWorld(t)
	id := w.post("Canceled", "runner-web", nil)
	cmd := fmt.Sprintf(`if [ "$PACT_TASK_TITLE" = Next ]; then echo next > %s/next; exit 0; fi
%s`, w.dir, slowCommand(w.dir, 60))
	s := w.start(w.env("runner-web", cmd, "PACT_RUNNER_HEARTBEAT_SECONDS", "0.2"))
	eventually(t, "the command started", func() bool { return w.file("pid") != "" }, s.log)
	require.True(t, w.alive())
	r := w.Admin("ana", "POST", "/tasks/"+id+"/cancel", `{"reason": "not needed"}`)
	require.Equal(t, 200, r.Status, r.Raw)
	eventually(t, "the run was killed", func() bool { return !w.alive() }, s.log)
	next := w.post("Next", "runner-web", nil)
	eventually(t, "the next task ran", func() bool { return w.status(next) == "completed" }, s.log)
	require.NoError(t, s.stop(t))
	require.Equal(t, "canceled", w.status(id))
	require.Empty(t, w.file("after"))
	require.Equal(t, "next\n", w.file("next"))
}

// A task whose claim is gone before its run's session opens (the board
// refuses the run's credential with claim_lost) is left alone: nothing
// runs and nothing is reported, since the task is no longer this agent's.
func TestAClaimLostBeforeTheSessionIsNotReported(t *testing.T) {
	w := newWorld(t)
	id := w.post("Someone else's now", "", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	cfg, err := loadConfig([]string{"--once"}, getenv(w.env("runner-web", "echo ran")), &logtest.Buffer{})
	require.NoError(t, err)
	log := &logtest.Buffer{}
	r := newRunner(cfg, newLogger(cfg, log))
	defer r.board.Close()
	ctx := context.Background()
	require.NoError(t, r.whoami(ctx, ""))
	require.NoError(t, r.runTask(ctx, r.log, taskView{ID: id, ProjectID: "web", Title: "Someone else's now"}, r.root, nil), log.String())
	require.Contains(t, log.String(), "the claim is gone before the run started; not reporting")
	require.NotContains(t, log.String(), "run ended", "nothing ran")
	require.Equal(t, "working", w.status(id), "still code-web's claim")
}

// A heartbeat that loses the task kills the run; one that fails otherwise
// (the board unreachable, a limit) is logged and the run goes on.
func TestAHeartbeatLosesTheTaskOnlyForTheCodesThatSaySo(t *testing.T) {
	for _, code := range []string{"claim_lost", "not_found", "mandate_revoked", "mandate_expired", "chain_broken"} {
		require.True(t, heartbeatLost(code), code)
	}
	for _, code := range []string{"", "unavailable", "rate_limited", "internal", "invalid_request", "forbidden"} {
		require.False(t, heartbeatLost(code), code)
	}
}
