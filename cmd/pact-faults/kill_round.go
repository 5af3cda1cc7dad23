package main

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// round kills board victim while probe holds pact_events on it, in a
// project nobody else writes to, so the call is surely waiting: the call
// must end with an error. While the board is down a task is posted to that
// project on another board; the probe re-issues its call there with its
// last next_since and must be answered with that task. Then the board is
// restarted. It returns the task and how long the restart took.
func (k *killRun) round(ctx context.Context, o options, probe *watcher, victim int, project string) (string, time.Duration, error) {
	b := k.s.boards[victim]
	held := make(chan error, 1)
	go func() {
		_, code, err := k.events(ctx, probe, probe.r.clients[victim], 30)
		if code == "" {
			err = fmt.Errorf("the held call was answered instead of failing")
		} else if code != transportErr {
			err = fmt.Errorf("the held call was refused with %s: %w", code, err)
		} else {
			err = nil
		}
		held <- err
	}()
	sleep(ctx, 300*time.Millisecond) // the call reaches the board and waits
	killed := time.Now()
	if err := b.kill(); err != nil {
		return "", 0, err
	}
	select {
	case err := <-held:
		if err != nil {
			return "", 0, err
		}
		k.mu.Lock()
		k.heldEnded++
		k.mu.Unlock()
	case <-time.After(10 * time.Second):
		return "", 0, fmt.Errorf("a pact_events call held on the killed board did not end within 10s")
	}
	other := probe.r.clients[(victim+1)%len(k.s.boards)]
	posted, code, err := other.timed(ctx, k.st, "pact_post", map[string]any{"project_id": project,
		"title": fmt.Sprintf("while %s is down", b.name), "mandate_id": probe.r.agent.mandate})
	if code != "" {
		return "", 0, fmt.Errorf("posting while the board is down: %s: %w", code, err)
	}
	id, _ := posted["task_id"].(string)
	tasks, code, err := k.events(ctx, probe, other, 10)
	if code != "" {
		return "", 0, fmt.Errorf("re-issuing the held call: %s: %w", code, err)
	}
	if !slices.Contains(tasks, id) {
		return "", 0, fmt.Errorf("the re-issued call missed task %s posted while the board was down (got %v)", id, tasks)
	}
	sleep(ctx, o.roundFor) // the load carries on without the board
	started := time.Now()
	if err := b.start(ctx); err != nil {
		return "", 0, err
	}
	restart := time.Since(started)
	fmt.Fprintf(k.out, "  round: %s killed, held call ended, re-issued call got the task, back up %s after the kill (start %s)\n",
		b.name, time.Since(killed).Round(time.Millisecond), restart.Round(time.Millisecond))
	return id, restart, nil
}

// check compares what was acknowledged with what the database and the
// watchers hold, verifies the log and prints the figures.
func (k *killRun) check(ctx context.Context, o options, elapsed time.Duration, acked, quietAcked []string,
	watchers []*watcher, restarts []time.Duration) error {
	s := k.s
	a, err := s.audit(ctx, append(slices.Clone(acked), quietAcked...))
	if err != nil {
		return err
	}
	lost, orphans := len(a.lost), a.orphans
	for _, id := range a.lost[:min(lost, 5)] {
		k.problem("acknowledged task %s is not in the database", id)
	}
	if orphans > 0 {
		k.problem("%d tasks have no log entry", orphans)
	}
	missed := 0
	for _, w := range watchers {
		for _, id := range acked {
			if !w.seen[id] {
				missed++
				if missed <= 5 && !o.reportMisses {
					k.problem("%s never saw acknowledged task %s", w.r.agent.id, id)
				}
			}
		}
	}
	entries, verr := s.verifyLog(ctx)
	if verr != nil {
		k.problem("%v", verr)
	}
	unanswered := a.present - len(acked) - len(quietAcked)
	fmt.Fprintf(k.out, "  %d rounds over %d boards in %s; %d writers, %d watchers\n", len(restarts), len(s.boards),
		elapsed.Round(time.Millisecond), o.writers, len(watchers))
	fmt.Fprintf(k.out, "  acknowledged posts: %d, lost: %d; committed without an answer (the client saw an error): %d\n",
		len(acked)+len(quietAcked), lost, unanswered)
	fmt.Fprintf(k.out, "  tasks without a log entry: %d; log: %d entries verified\n", orphans, entries)
	fmt.Fprintf(k.out, "  held calls on a killed board ended with an error: %d of %d; re-issued, missed: 0\n", k.heldEnded, len(restarts))
	fmt.Fprintf(k.out, "  acknowledged tasks a watcher's pact_events never returned: %d (of %d watched)\n", missed, len(acked)*len(watchers))
	r50, r99, rmax := percentiles(restarts)
	fmt.Fprintf(k.out, "  board restart to /readyz: p50=%s p99=%s max=%s\n", round(r50), round(r99), round(rmax))
	k.st.print(k.out)
	if len(k.problems) > 0 {
		return fmt.Errorf("%d problems, first: %v", len(k.problems), k.problems[:min(len(k.problems), 10)])
	}
	if len(restarts) != o.rounds {
		return fmt.Errorf("only %d of %d rounds ran: %v", len(restarts), o.rounds, ctx.Err())
	}
	return nil
}
