package main

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// round kills board victim while the probe holds pact_events and the
// waiter pact_wait on it, in a project nobody else writes to, so both calls
// are surely waiting: both must end with an error. While the board is down
// the probe posts a task to that project on another board and sends the
// waiter a message on it; each re-issues its call there (the probe with its
// last next_since) and must be answered with the task, or the message.
// Then the board is restarted. It returns the task and how long the
// restart took.
func (k *killRun) round(ctx context.Context, o options, c *crew, victim int) (string, time.Duration, error) {
	b, probe, project := k.s.boards[victim], c.probe, c.probe.project
	held := make(chan error, 2)
	mustFail := func(tool string, code string, err error) error {
		switch code {
		case "":
			return fmt.Errorf("the held %s was answered instead of failing", tool)
		case transportErr:
			return nil
		}
		return fmt.Errorf("the held %s was refused with %s: %w", tool, code, err)
	}
	go func() {
		_, code, err := k.events(ctx, probe, probe.r.clients[victim], 30)
		held <- mustFail("pact_events", code, err)
	}()
	go func() {
		_, code, err := c.waiter.clients[victim].timed(ctx, k.st, "pact_wait",
			map[string]any{"mandate_id": c.waiter.agent.mandate, "seconds": 30})
		held <- mustFail("pact_wait", code, err)
	}()
	sleep(ctx, 300*time.Millisecond) // the calls reach the board and wait
	killed := time.Now()
	if err := b.kill(); err != nil {
		return "", 0, err
	}
	for range 2 {
		select {
		case err := <-held:
			if err != nil {
				return "", 0, err
			}
			k.mu.Lock()
			k.heldEnded++
			k.mu.Unlock()
		case <-time.After(10 * time.Second):
			return "", 0, fmt.Errorf("a call held on the killed board did not end within 10s")
		}
	}
	next := (victim + 1) % len(k.s.boards)
	other := probe.r.clients[next]
	posted, code, err := other.timed(ctx, k.st, "pact_post", map[string]any{"project_id": project,
		"title": fmt.Sprintf("while %s is down", b.name), "mandate_id": probe.r.agent.mandate})
	if code != "" {
		return "", 0, fmt.Errorf("posting while the board is down: %s: %w", code, err)
	}
	id, _ := posted["task_id"].(string)
	body := fmt.Sprintf("while %s is down", b.name)
	if _, code, err := other.timed(ctx, k.st, "pact_message", map[string]any{"task_id": id, "to": c.waiter.agent.id,
		"body": body, "mandate_id": probe.r.agent.mandate}); code != "" {
		return "", 0, fmt.Errorf("messaging the waiter while the board is down: %s: %w", code, err)
	}
	tasks, code, err := k.events(ctx, probe, other, 10)
	if code != "" {
		return "", 0, fmt.Errorf("re-issuing the held pact_events: %s: %w", code, err)
	}
	if !slices.Contains(tasks, id) {
		return "", 0, fmt.Errorf("the re-issued pact_events missed task %s posted while the board was down (got %v)", id, tasks)
	}
	if err := k.rewait(ctx, c.waiter.clients[next], c.waiter.agent, body); err != nil {
		return "", 0, err
	}
	sleep(ctx, o.roundFor) // the load carries on without the board
	started := time.Now()
	if err := b.start(ctx); err != nil {
		return "", 0, err
	}
	restart := time.Since(started)
	fmt.Fprintf(k.out, "  round: %s killed, held calls ended, re-issued calls got the task and the message, back up %s after the kill (start %s)\n",
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
	// The boards, all running again, place every committed entry by
	// themselves, those of a killed board's last moments too
	// (docs/log-sequencing.md); verifyLog would place them itself.
	queued, qerr := s.queuedAfter(ctx, 5*time.Second)
	if qerr != nil {
		return qerr
	}
	if queued > 0 {
		k.problem("%d committed log entries still wait for their place 5 s after the last round", queued)
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
	fmt.Fprintf(k.out, "  tasks without a log entry: %d; log entries not placed by the boards: %d; log: %d entries verified\n",
		orphans, queued, entries)
	fmt.Fprintf(k.out, "  held calls (pact_events, pact_wait) on a killed board ended with an error: %d of %d; re-issued, missed: 0\n",
		k.heldEnded, 2*len(restarts))
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

// rewait re-issues the waiter's pact_wait through c: it must return body,
// the message sent while its first call's board was down.
func (k *killRun) rewait(ctx context.Context, c *client, waiter agentCreds, body string) error {
	got, code, err := c.timed(ctx, k.st, "pact_wait", map[string]any{"mandate_id": waiter.mandate, "seconds": 10})
	if code != "" {
		return fmt.Errorf("re-issuing the held pact_wait: %s: %w", code, err)
	}
	msgs, _ := got["messages"].([]any)
	for _, m := range msgs {
		if m.(map[string]any)["body"] == body {
			return nil
		}
	}
	return fmt.Errorf("the re-issued pact_wait missed the message sent while the board was down (got %v)", got)
}
