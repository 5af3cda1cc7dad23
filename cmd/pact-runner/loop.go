package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"
)

// runner is one headless agent's loop (docs/runner.md).
type runner struct {
	cfg   *config
	log   hclog.Logger
	board *client
	root  string          // the root mandate it waits and claims open tasks under
	skip  map[string]bool // production projects
	// project is its first project that is not production, a schedule's
	// default.
	project string
	sched   map[string]scheduled // each schedule entry's last post, by title
	cap     dailyCap
	since   int64
	ranAny  bool
}

// stopped is the error a fatal refusal ends the runner with.
type stopped struct{ err error }

func (s stopped) Error() string { return "runner stopped: " + s.err.Error() }
func (s stopped) Unwrap() error { return s.err }

func newRunner(cfg *config, log hclog.Logger) *runner {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	return &runner{cfg: cfg, log: log, board: newClient(cfg.URL, cfg.AgentID, cfg.Token), cap: dailyCap{max: cfg.MaxRunsPerDay},
		sched: map[string]scheduled{}}
}

// serve runs the loop until ctx ends (nil), a fatal refusal (stopped), or
// with --once after one task or none.
func (r *runner) serve(ctx context.Context) error {
	defer r.board.Close()
	if err := removeLeftRuns(r.cfg.LogDir); err != nil {
		return fmt.Errorf("clear the run directories left in %s: %w", r.cfg.LogDir, err)
	}
	if err := r.whoami(ctx, ""); err != nil {
		return err
	}
	if err := r.checkBoardTools(ctx); err != nil {
		return stopped{err}
	}
	r.log.Info("runner started", "agent", r.cfg.AgentID, "root_mandate", r.root, "take_open", r.cfg.TakeOpen, "once", r.cfg.Once)
	backoff := time.Second
	for ctx.Err() == nil {
		if r.pause(ctx) {
			if r.cfg.Once {
				return nil
			}
			continue
		}
		if err := r.schedules(ctx); err != nil {
			return err
		}
		if r.cfg.Once && r.ranAny {
			return nil
		}
		seconds := r.untilDue(r.cfg.now(), 50*time.Second).Seconds()
		if r.cfg.Once {
			seconds = 0
		}
		var ev eventsOut
		err := r.board.call(ctx, "pact_events", map[string]any{"mandate_id": r.root, "since": r.since, "seconds": seconds}, &ev)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if unauthorized(err) {
				return stopped{err}
			}
			if err := r.refused(ctx, err, r.root); err != nil {
				return err
			}
			if codeOf(err) == "" {
				r.log.Warn("pact_events failed; trying again", "error", err, "in", backoff)
				sleep(ctx, backoff)
				backoff = nextBackoff(backoff)
			}
			continue
		}
		backoff = time.Second
		done, err := r.offer(ctx, ev.Tasks, ev.Offered)
		if err != nil {
			return err
		}
		if r.cfg.Once && r.ranAny {
			return nil
		}
		if !done {
			continue // stopped part-way: the same since offers the rest again
		}
		r.since = ev.NextSince
		if r.cfg.Once {
			return nil
		}
		if len(ev.Messages) > 0 && !r.readMessages(ctx, ev.Messages) && len(ev.Tasks) == 0 {
			// Only unread messages woke the call, and they could not be
			// read: wait a little rather than spin on them.
			sleep(ctx, messageWait)
		}
	}
	return nil
}

// offer goes through the tasks pact_events offered, claiming and running
// the ones the runner takes. It returns false when it stopped before the
// end (the context, quiet hours, the daily cap, --once after a run).
func (r *runner) offer(ctx context.Context, tasks []taskView, offered []string) (bool, error) {
	for _, t := range spread(tasks, r.cfg.AgentID, offered) {
		if ctx.Err() != nil {
			return false, nil
		}
		if r.cfg.Once && r.ranAny {
			return false, nil
		}
		if r.pause(ctx) {
			return false, nil
		}
		if err := r.take(ctx, t); err != nil {
			return false, err
		}
	}
	return true, nil
}

// spread orders the tasks pact_events returned: those delegated to agent
// first, oldest first, then those the board offered to it (it woke this
// runner, and no other, for them), then the other open ones shuffled, so
// that runners sharing a project do not all race for the same open task.
func spread(tasks []taskView, agent string, offered []string) []taskView {
	var mine, ours, open []taskView
	for _, t := range tasks {
		switch {
		case t.DelegateTo != nil && *t.DelegateTo == agent:
			mine = append(mine, t)
		case slices.Contains(offered, t.ID):
			ours = append(ours, t)
		default:
			open = append(open, t)
		}
	}
	rand.Shuffle(len(open), func(i, j int) { open[i], open[j] = open[j], open[i] })
	return append(append(mine, ours...), open...)
}

// pause reports whether no task may be claimed now (quiet hours, the daily
// cap); outside --once it first waits until one may.
func (r *runner) pause(ctx context.Context) bool {
	now := r.cfg.now()
	until, quiet := r.cfg.Quiet.until(now)
	why := "quiet hours"
	if !quiet {
		if until, quiet = r.cap.full(now); quiet {
			why = "daily run cap reached"
		}
	}
	if !quiet {
		return false
	}
	if r.cfg.Once {
		r.log.Info("not claiming: "+why, "until", until.Format(time.RFC3339))
		return true
	}
	r.log.Info("waiting: "+why, "until", until.Format(time.RFC3339))
	sleep(ctx, until.Sub(now))
	return true
}

// take claims task t and runs it, unless the runner does not take it. A
// refused claim skips the task; only a fatal refusal is an error.
func (r *runner) take(ctx context.Context, t taskView) error {
	log := r.log.With("task", t.ID, "project", t.ProjectID)
	mine := t.DelegateTo != nil && *t.DelegateTo == r.cfg.AgentID
	switch {
	case r.skip[t.ProjectID]:
		log.Warn("skipping a task of a production project")
		return nil
	case t.DelegateTo != nil && !mine:
		return nil
	case !mine && !r.cfg.TakeOpen:
		log.Debug("skipping an undelegated task (PACT_RUNNER_TAKE_OPEN is not 1)")
		return nil
	}
	m := r.root
	if mine && t.DelegatedMandateID != nil {
		m = *t.DelegatedMandateID
	}
	return r.claim(ctx, log, t, m)
}

// claim claims task t under mandate m (exclusive, reserving a run) and runs
// it. A refused claim skips the task; only a fatal refusal is an error.
func (r *runner) claim(ctx context.Context, log hclog.Logger, t taskView, m string) error {
	var got claimOut
	args := map[string]any{"task_id": t.ID, "mandate_id": m, "exclusive": true, "reserve": map[string]float64{"runs": 1}}
	err := r.board.call(ctx, "pact_claim", args, &got)
	for wait := 100 * time.Millisecond; err != nil && transient(err) && wait < 5*time.Second && ctx.Err() == nil; wait *= 2 {
		// The board could not answer (internal, unavailable, rate_limited,
		// no connection): the claim did not happen, so try it again.
		log.Debug("claim failed; trying again", "error", err, "in", wait)
		sleep(ctx, wait)
		err = r.board.call(ctx, "pact_claim", args, &got)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		if err := r.refused(ctx, err, m); err != nil {
			return err
		}
		if isDrop(codeOf(err)) {
			log.Info("skipping the task: claim refused", "error", err)
		} else {
			log.Warn("skipping the task: the claim failed", "error", err)
		}
		return nil
	}
	r.cap.add(r.cfg.now())
	r.ranAny = true
	return r.runTask(ctx, log, t, m, got.Budget)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// nextBackoff is the wait after d before pact_events is tried again while
// the board cannot be reached: twice d, at most 30 seconds.
func nextBackoff(d time.Duration) time.Duration {
	return min(d*2, 30*time.Second)
}
