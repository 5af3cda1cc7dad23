package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

// The daily cap: after PACT_RUNNER_MAX_RUNS_PER_DAY claims the runner
// claims nothing more that day, and waits.
func TestRunnerKeepsTheDailyCap(t *testing.T) {
	w := newWorld(t)
	ids := []string{w.post("One", "runner-web", nil), w.post("Two", "runner-web", nil), w.post("Three", "runner-web", nil)}
	cmd := fmt.Sprintf(`echo "$PACT_TASK_TITLE" >> %s/ran`, w.dir)
	s := w.start(w.env("runner-web", cmd, "PACT_RUNNER_MAX_RUNS_PER_DAY", "2"))
	eventually(t, "the cap is reached", func() bool { return s.log.Contains("waiting: daily run cap reached") }, s.log)
	require.Equal(t, "One\nTwo\n", w.file("ran"))
	require.Equal(t, "submitted", w.status(ids[2]))
	require.NoError(t, s.stop(t))
	require.Equal(t, "submitted", w.status(ids[2]))
}

// Quiet hours: inside them the runner claims nothing; --once returns, and
// without it the runner waits for their end.
func TestRunnerKeepsQuietHours(t *testing.T) {
	w := newWorld(t)
	id := w.post("At night", "runner-web", nil)
	night := func() time.Time { return time.Date(2026, 11, 30, 23, 30, 0, 0, time.Local) }
	for _, once := range []bool{true, false} {
		args := []string{}
		if once {
			args = append(args, "--once")
		}
		cfg, err := loadConfig(args, getenv(w.env("runner-web", "echo ran", "PACT_RUNNER_QUIET_HOURS", "22-07")), &logtest.Buffer{})
		require.NoError(t, err)
		cfg.now = night
		log := &logtest.Buffer{}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- newRunner(cfg, newLogger(cfg, log)).serve(ctx) }()
		if !once {
			eventually(t, "it waits", func() bool { return log.Contains("waiting: quiet hours") }, log)
			require.Contains(t, log.String(), "until=2026-12-01T07:00:00")
			cancel()
		}
		require.NoError(t, <-done)
		cancel()
		require.Equal(t, "submitted", w.status(id), "once=%v", once)
	}
	day := func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local) }
	cfg, err := loadConfig([]string{"--once"}, getenv(w.env("runner-web", "echo ran", "PACT_RUNNER_QUIET_HOURS", "22-07")), &logtest.Buffer{})
	require.NoError(t, err)
	cfg.now = day
	require.NoError(t, newRunner(cfg, newLogger(cfg, &logtest.Buffer{})).serve(context.Background()))
	require.Equal(t, "completed", w.status(id), "outside quiet hours it runs")
}

func TestQuietHoursSpan(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 1, 1, h, m, 0, 0, time.UTC) }
	night, err := parseQuietHours("22-07")
	require.NoError(t, err)
	for _, c := range []struct {
		t     time.Time
		quiet bool
		until time.Time
	}{
		{at(21, 59), false, time.Time{}}, {at(22, 0), true, at(31, 0)}, {at(3, 0), true, at(7, 0)}, {at(7, 0), false, time.Time{}},
	} {
		until, quiet := night.until(c.t)
		require.Equal(t, c.quiet, quiet, c.t)
		require.True(t, until.Equal(c.until), "%s: %s", c.t, until)
	}
	lunch, err := parseQuietHours("12-14")
	require.NoError(t, err)
	_, quiet := lunch.until(at(13, 0))
	require.True(t, quiet)
	_, quiet = lunch.until(at(14, 0))
	require.False(t, quiet)
	for _, bad := range []string{"22", "7-7", "24-01", "a-b"} {
		_, err := parseQuietHours(bad)
		require.Error(t, err, bad)
	}
}

// When its root mandate is revoked the runner reads pact_whoami again and
// switches to a new root a person issued, without a restart; with none
// left it stops.
func TestRunnerSwitchesToANewRootMandate(t *testing.T) {
	w := newWorld(t)
	cmd := fmt.Sprintf(`echo "$PACT_TASK_TITLE" >> %s/ran`, w.dir)
	s := w.start(w.env("runner-web", cmd))
	eventually(t, "the runner waits", func() bool { return w.listening("runner-web") }, s.log)
	old := w.Root("runner-web")
	// The new root first: revoking the old one wakes the runner at once,
	// and a runner that reads pact_whoami before a new root exists stops.
	fresh := w.Mandate("ana", "runner-web", "task.read@project:web", "task.work@project:web")
	r := w.Admin("ana", "POST", "/mandates/"+old+"/revoke", "")
	require.Equal(t, 200, r.Status, r.Raw)
	w.post("After the switch", "runner-web", nil)
	eventually(t, "the task ran", func() bool { return w.file("ran") == "After the switch\n" }, s.log)
	require.Contains(t, s.log.String(), "switched to a new root mandate: from="+old+" to="+fresh)

	r = w.Admin("ana", "POST", "/mandates/"+fresh+"/revoke", "")
	require.Equal(t, 200, r.Status, r.Raw)
	w.post("Nobody runs this", "runner-web", nil)
	err := s.wait(t)
	require.ErrorAs(t, err, &stopped{})
	require.ErrorContains(t, err, "no live root mandate left")
	require.Equal(t, "After the switch\n", w.file("ran"))
}

// A task runs only while its mandate's budget has a turn and, when it
// caps money, some money left: a budget of exactly one turn, or of any
// money, runs; none of either reports the task failed, nothing run,
// saying which budget is spent.
func TestRunnerRunsOnlyWithATurnAndMoneyLeft(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		limits map[string]float64
		status string
		result string
	}{
		{map[string]float64{"runs": 1, "turns": 1}, "completed", "ran in 1 turns"},
		{map[string]float64{"runs": 1, "turns": 0}, "failed", "No turns left in the mandate's budget; nothing ran."},
		{map[string]float64{"runs": 1, "usd": 0.5}, "completed", "ran in 200 turns"},
		{map[string]float64{"runs": 1, "usd": 0}, "failed", "No money left in the mandate's budget (usd); nothing ran."},
	} {
		id := w.post("Budget", "runner-web", map[string]any{"child_limits": c.limits})
		out, err := w.runOnce(w.env("runner-web", `echo "ran in $PACT_MAX_TURNS turns"`, "PACT_RUNNER_MAX_TURNS", "200"))
		require.NoError(t, err, out)
		require.Equal(t, c.status, w.status(id), "limits %v: %s", c.limits, out)
		require.Contains(t, w.result(id), c.result, "limits %v", c.limits)
	}
}
