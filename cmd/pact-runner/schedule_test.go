package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
)

// onceAt runs the runner with --once and env, its clock stopped at now.
func (w *world) onceAt(env map[string]string, now time.Time) string {
	w.T.Helper()
	cfg, err := loadConfig([]string{"--once"}, getenv(env), &logtest.Buffer{})
	require.NoError(w.T, err)
	cfg.now = func() time.Time { return now }
	log := &logtest.Buffer{}
	require.NoError(w.T, newRunner(cfg, newLogger(cfg, log)).serve(context.Background()), log.String())
	return log.String()
}

func (w *world) head() int {
	return w.Count(`SELECT coalesce(max(change_xact), 0)::int FROM tasks WHERE project_id = 'web'`)
}

// A schedule entry is posted by the runner in its project at its local
// time, {date}, {project} and {since} filled, and run by the runner
// itself: once a day, also across a restart (the runner reads what it
// posted from the board), and again the next day with {since} the head it
// recorded the day before.
func TestRunnerRunsItsScheduleOnceADay(t *testing.T) {
	w := newWorld(t)
	w.post("Someone else's", "", nil)
	sched := `[{"at":"07:30","title":"Brief {date}","body":"Brief for {date} of {project} since {since}."}]`
	cmd := fmt.Sprintf(`printf '%%s|%%s|%%s\n' "$PACT_TASK_TITLE" "$(printf '%%s' "$PACT_TASK_BODY" | head -n 1)" "$PACT_TASK_ID" >> %s/ran`, w.dir)
	env := w.env("runner-web", cmd, "PACT_RUNNER_SCHEDULE", sched)
	day := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.Local) }
	posted := func() int { return w.Count(`SELECT count(*) FROM tasks WHERE created_by = 'runner-web'`) }

	log := w.onceAt(env, day(29, 7, 29))
	require.Zero(t, posted(), "before its time nothing is posted: %s", log)
	require.Empty(t, w.file("ran"))

	head1 := w.head()
	log = w.onceAt(env, day(29, 7, 30))
	require.Equal(t, 1, posted(), log)
	var id string
	require.NoError(t, w.DB.NewRaw(`SELECT id::text FROM tasks WHERE created_by = 'runner-web'`).Scan(context.Background(), &id))
	want := fmt.Sprintf("Brief 2026-11-29|Brief for 2026-11-29 of web since %d.|%s\n", head1, id)
	require.Equal(t, want, w.file("ran"))
	require.Equal(t, "completed", w.status(id))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND project_id = 'web' AND action = 'task.work' AND assignee = 'runner-web'`, id))
	require.Equal(t, 1.0, w.used(w.Root("runner-web"), "runs"), "claimed under its root mandate")

	w.post("Changed since", "", nil)
	log = w.onceAt(env, day(29, 23, 0))
	require.Equal(t, 1, posted(), "a restarted runner posts nothing more the same day: %s", log)
	require.Equal(t, want, w.file("ran"))

	head2 := w.head()
	log = w.onceAt(env, day(30, 8, 0))
	require.Equal(t, 2, posted(), log)
	require.Contains(t, w.file("ran"), fmt.Sprintf("Brief 2026-11-30|Brief for 2026-11-30 of web since %d.|", head1),
		"the next day {since} is the head recorded by the day before's post")
	log = w.onceAt(env, time.Date(2026, 12, 1, 7, 45, 0, 0, time.Local))
	require.Equal(t, 3, posted(), log)
	require.Contains(t, w.file("ran"), fmt.Sprintf("Brief 2026-12-01|Brief for 2026-12-01 of web since %d.|", head2))
}

// An invalid PACT_RUNNER_SCHEDULE stops the runner at its start with an
// error naming it.
func TestRunnerRefusesAnInvalidSchedule(t *testing.T) {
	w := newWorld(t)
	for _, bad := range []string{`not json`, `{"at":"07:30","title":"x"}`, `[{"at":"7.30","title":"x"}]`, `[{"at":"24:00","title":"x"}]`,
		`[{"at":"07:30"}]`, `[{"at":"07:30","title":"x","when":"daily"}]`, `[{"at":"07:30","title":"x"},{"at":"08:00","title":"x"}]`} {
		_, err := w.runOnce(w.env("runner-web", "true", "PACT_RUNNER_SCHEDULE", bad))
		require.ErrorContains(t, err, "PACT_RUNNER_SCHEDULE", bad)
	}
	cfg, err := loadConfig(nil, getenv(w.env("runner-web", "true", "PACT_RUNNER_SCHEDULE",
		`[{"at":"07:30","title":"ok","action":"report.brief","body":"b","project":"web"}]`)), &logtest.Buffer{})
	require.NoError(t, err)
	require.Equal(t, []scheduleEntry{{At: "07:30", Title: "ok", Action: "report.brief", Body: "b", Project: "web", hour: 7, minute: 30}}, cfg.Schedule)
}

// A running runner posts a due entry at once, and not again that day
// while it goes on waking for other tasks.
func TestRunnerRunsItsScheduleWhileWaiting(t *testing.T) {
	w := newWorld(t)
	cmd := fmt.Sprintf(`echo "$PACT_TASK_TITLE" >> %s/ran`, w.dir)
	cfg, err := loadConfig(nil, getenv(w.env("runner-web", cmd, "PACT_RUNNER_SCHEDULE", `[{"at":"07:30","title":"Brief"}]`)), &logtest.Buffer{})
	require.NoError(t, err)
	cfg.now = func() time.Time { return time.Date(2026, 11, 29, 9, 0, 0, 0, time.Local) }
	log := &logtest.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newRunner(cfg, newLogger(cfg, log)).serve(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, "the brief ran", func() bool { return w.file("ran") == "Brief\n" }, log)
	w.post("One", "runner-web", nil)
	eventually(t, "One ran", func() bool { return w.file("ran") == "Brief\nOne\n" }, log)
	w.post("Two", "runner-web", nil)
	eventually(t, "Two ran", func() bool { return w.file("ran") == "Brief\nOne\nTwo\n" }, log)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE created_by = 'runner-web'`))
}

// A schedule entry for a project the runner is not in is not posted.
func TestRunnerPostsSchedulesOnlyInItsProjects(t *testing.T) {
	w := newWorld(t)
	env := w.env("runner-web", "true", "PACT_RUNNER_SCHEDULE", `[{"at":"07:30","title":"Elsewhere","project":"api"}]`)
	log := w.onceAt(env, time.Date(2026, 11, 29, 8, 0, 0, 0, time.Local))
	require.Contains(t, log, "schedule: not a project of this runner, or production; not posting")
	require.Zero(t, w.Count(`SELECT count(*) FROM tasks WHERE created_by = 'runner-web'`))
}

// A schedule entry that names an action posts its task with that action;
// one that names none, with the board's default (task.work, above).
func TestAScheduledTaskKeepsItsAction(t *testing.T) {
	w := newWorld(t)
	sched := `[{"at":"07:30","title":"Brief {date}","body":"b","action":"report.brief"}]`
	env := w.env("runner-web", fmt.Sprintf(`echo ran >> %s/ran`, w.dir), "PACT_RUNNER_SCHEDULE", sched)
	log := w.onceAt(env, time.Date(2026, 11, 29, 7, 30, 0, 0, time.Local))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE created_by = 'runner-web' AND action = 'report.brief'`), log)
}

// A schedule's failed call stops the runner only for a refusal that stops
// it anywhere (a kill switch, a paused agent); anything else is tried
// again on the next pass, and once the runner is stopping nothing is.
func TestAScheduleFailureStopsTheRunnerOnlyWhenItMust(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	require.NoError(t, os.Mkdir(dir, 0o700))
	cfg, err := loadConfig([]string{"--once"}, getenv(map[string]string{"PACT_URL": "http://board.test",
		"PACT_TOKEN": "pact_x", "PACT_AGENT_ID": "runner-web", "PACT_RUNNER_COMMAND": "true",
		"PACT_RUNNER_LOG_DIR": dir}), &logtest.Buffer{})
	require.NoError(t, err)
	log := &logtest.Buffer{}
	r := newRunner(cfg, newLogger(cfg, log))
	ctx := context.Background()
	var s stopped
	require.ErrorAs(t, r.scheduleFailed(ctx, r.log, &refusal{Code: "agent_paused", Message: "paused"}), &s)
	require.ErrorAs(t, r.scheduleFailed(ctx, r.log, &refusal{Code: "system_halted", Message: "halted"}), &s)
	require.NoError(t, r.scheduleFailed(ctx, r.log, &refusal{Code: "rate_limited", Message: "slow down"}))
	require.Contains(t, log.String(), "trying again on the next pass")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	require.NoError(t, r.scheduleFailed(ended, r.log, &refusal{Code: "agent_paused", Message: "paused"}),
		"a runner already stopping is stopped by nothing more")
}
