package main

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// round SIGTERMs board victim while probe holds pact_events on it in a
// project nobody writes to, so at least that call is surely held there.
// The board must answer /readyz 503 before it stops listening, answer the
// probe with reconnect, and give every call in flight on it at the SIGTERM
// an answer (held ones: reconnect); then it exits and is started again.
func (r *rollingRun) round(ctx context.Context, probe *watcher, victim int) error {
	b := r.s.boards[victim]
	type answer struct {
		code string
		err  error
		at   time.Time
	}
	held := make(chan answer, 1)
	go func() {
		_, code, err := r.events(ctx, probe, probe.r.clients[victim], 30)
		held <- answer{code, err, time.Now()}
	}()
	sleep(ctx, 300*time.Millisecond) // the call reaches the board and waits
	flying := r.inFlightOn(victim)
	termed := time.Now()
	if err := b.term(); err != nil {
		return err
	}
	// /readyz must turn 503 while the board still listens.
	ready503 := make(chan error, 1)
	go func() {
		hc := &http.Client{Timeout: 500 * time.Millisecond}
		for {
			switch code := readyz(ctx, hc, b.url); code {
			case http.StatusServiceUnavailable:
				r.readyz503 = append(r.readyz503, time.Since(termed))
				ready503 <- nil
				return
			case 0:
				ready503 <- fmt.Errorf("/readyz got no answer before it answered 503")
				return
			}
			if time.Since(termed) > 10*time.Second {
				ready503 <- fmt.Errorf("/readyz did not answer 503 within 10 s of SIGTERM")
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	select {
	case a := <-held:
		if a.code != "" {
			return fmt.Errorf("the probe's held call ended with %s instead of reconnect: %v", a.code, a.err)
		}
		if !probe.reconnected {
			return fmt.Errorf("the probe's held call was answered without reconnect")
		}
		r.probeAnswered = append(r.probeAnswered, a.at.Sub(termed))
	case <-time.After(10 * time.Second):
		return fmt.Errorf("the probe's held call was not answered within 10 s of SIGTERM")
	}
	if err := <-ready503; err != nil {
		return err
	}
	if err := b.exited(60*time.Second, "SIGTERM"); err != nil {
		return err
	}
	r.exits = append(r.exits, time.Since(termed))
	// Every call in flight on the board at the SIGTERM got an answer.
	unanswered := 0
	for _, f := range flying {
		select {
		case <-f.done:
		case <-time.After(callTimeout):
			return fmt.Errorf("a %s call in flight at the SIGTERM never ended", f.tool)
		}
		r.inFlight++
		switch {
		case f.code == transportErr:
			// Reported, not failed on: a call the board never read (the
			// drain closes idle keep-alive connections; docs/reliability.md,
			// "Finding: a call sent on an idle connection at the SIGTERM").
			// One it read and left unanswered would have committed: check
			// fails on a post committed twice.
			unanswered++
			r.cutAtTerm = append(r.cutAtTerm, fmt.Sprintf("%s on %s: %v", f.tool, b.name, f.err))
		case f.tool == "pact_events" && !f.reconnect:
			r.inFlightAnswered++ // woken by a task in the same instant
		case f.tool == "pact_events":
			r.inFlightAnswered++
			r.heldReconnect++
		default:
			r.inFlightAnswered++
		}
	}
	started := time.Now()
	if err := b.start(ctx); err != nil {
		return err
	}
	r.restarts = append(r.restarts, time.Since(started))
	fmt.Fprintf(r.out, "  round: %s SIGTERM; /readyz 503 after %s; probe answered with reconnect after %s; %d calls in flight, %d without an answer; exited after %s; ready again %s after start\n",
		b.name, round(r.readyz503[len(r.readyz503)-1]), round(r.probeAnswered[len(r.probeAnswered)-1]), len(flying), unanswered,
		round(r.exits[len(r.exits)-1]), round(r.restarts[len(r.restarts)-1]))
	return nil
}

// check compares what was acknowledged with what the database and the
// watchers hold, verifies the log and prints the figures.
func (r *rollingRun) check(ctx context.Context, o options, elapsed time.Duration, acked []string, watchers []*watcher) error {
	a, err := r.s.audit(ctx, acked)
	if err != nil {
		return err
	}
	for _, id := range a.lost[:min(len(a.lost), 5)] {
		r.problem("acknowledged task %s is not in the database", id)
	}
	if a.orphans > 0 {
		r.problem("%d tasks have no log entry", a.orphans)
	}
	// A post retried elsewhere after its board read it but never answered
	// would be there twice: each writer's titles are unique, and a retry
	// keeps its title.
	var twice int
	if err := r.s.db.Pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM tasks
		GROUP BY project_id, title HAVING count(*) > 1) d`).Scan(&twice); err != nil {
		return err
	}
	if twice > 0 {
		r.problem("%d posts committed twice: a board read a call and left it unanswered", twice)
	}
	missed := 0
	for _, w := range watchers {
		for _, id := range acked {
			if !w.seen[id] {
				missed++
				if missed <= 5 {
					r.problem("%s never saw acknowledged task %s", w.r.agent.id, id)
				}
			}
		}
	}
	entries, verr := r.s.verifyLog(ctx)
	if verr != nil {
		r.problem("%v", verr)
	}
	var total, first, retried, refused, failed int
	var byTool []string
	tools := make([]string, 0, len(r.calls))
	for t := range r.calls {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
		c := r.calls[t]
		n := c.first + c.retried + c.refused + c.failed
		total, first, retried, refused, failed = total+n, first+c.first, retried+c.retried, refused+c.refused, failed+c.failed
		byTool = append(byTool, fmt.Sprintf("%s=%d", t, n))
	}
	out := r.out
	fmt.Fprintf(out, "  %d rounds over %d boards in %s (PACT_DRAIN_SECONDS=%d); %d writers, %d watchers\n", len(r.restarts),
		len(r.s.boards), elapsed.Round(time.Millisecond), drainSeconds, o.writers, len(watchers))
	fmt.Fprintf(out, "  calls through the balancer: %d (%s); answered at the first attempt: %d, after a retry: %d; refused: %d; failed on all %d attempts: %d\n",
		total, strings.Join(byTool, " "), first, retried, refused, attempts, failed)
	fmt.Fprintf(out, "  calls in flight on a board at its SIGTERM: %d, answered: %d (held pact_events answered with reconnect: %d), no answer: %d\n",
		r.inFlight, r.inFlightAnswered, r.heldReconnect, len(r.cutAtTerm))
	for _, cut := range r.cutAtTerm {
		fmt.Fprintf(out, "    no answer: %s\n", cut)
	}
	if len(r.cutAtTerm) > 0 {
		r.problem("%d calls in flight at a SIGTERM got no answer: a drain must answer what it took", len(r.cutAtTerm))
	}
	fmt.Fprintf(out, "  reconnect answers: %d to the watchers, %d of %d to the probe held on the stopping board\n",
		r.reconnects, len(r.probeAnswered), len(r.restarts))
	fmt.Fprintf(out, "  acknowledged posts: %d, lost: %d; committed without an answer: %d (posts retried: %d; cut off when the load stopped: %d); committed twice: %d\n",
		len(acked), len(a.lost), a.present-len(acked), r.retried("pact_post"), r.cutOff, twice)
	fmt.Fprintf(out, "  tasks without a log entry: %d; log: %d entries verified\n", a.orphans, entries)
	fmt.Fprintf(out, "  acknowledged tasks a watcher's pact_events never returned: %d (of %d watched)\n", missed, len(acked)*len(watchers))
	for _, why := range r.retriedWhy {
		fmt.Fprintf(out, "  retried: %s\n", why)
	}
	for _, f := range []struct {
		what string
		ds   []time.Duration
	}{{"SIGTERM to /readyz 503", r.readyz503}, {"SIGTERM to the probe's reconnect answer", r.probeAnswered},
		{"SIGTERM to exit", r.exits}, {"restart to /readyz 200", r.restarts}} {
		p50, p99, top := percentiles(f.ds)
		fmt.Fprintf(out, "  %s: p50=%s p99=%s max=%s\n", f.what, round(p50), round(p99), round(top))
	}
	r.st.print(out)
	if len(r.problems) > 0 {
		return fmt.Errorf("%d problems, first: %v", len(r.problems), r.problems[:min(len(r.problems), 10)])
	}
	if len(r.restarts) != o.rounds {
		return fmt.Errorf("only %d of %d rounds ran: %v", len(r.restarts), o.rounds, ctx.Err())
	}
	return nil
}

// retried is how many of tool's calls were answered after a retry.
func (r *rollingRun) retried(tool string) int {
	if c := r.calls[tool]; c != nil {
		return c.retried
	}
	return 0
}
