package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// hold is a holder's day, as pact-runner's (docs/runner.md): pact_events
// on its project; of the tasks it is told of, the ones offered to it
// first, then the others in random order, it claims until one claim wins,
// tells the task's poster (pact_message) and closes it with a handoff.
// Losing a claim race is part of the day (lostClaim); anything else
// refused is a problem. When the day has people, one claimed task in ten
// is deferred to a person instead, who resumes it from the console
// (day_people.go); the person's answer comes back as a message, which the
// holder reads.
func (d *dayRun) hold(ctx context.Context, a *dayAgent) {
	for ctx.Err() == nil {
		c := a.r.next()
		got, code, err := c.timed(ctx, d.st, "pact_events", map[string]any{"mandate_id": a.r.agent.mandate,
			"project_id": a.project, "since": a.cursor, "seconds": 20})
		if !d.fine(ctx, a, "pact_events", code, err) {
			continue
		}
		now := time.Now()
		if next, ok := got["next_since"].(float64); ok {
			a.cursor = int64(next)
		}
		// A person's answer to a deferral comes as a message, which wakes
		// every pact_events until it is read: the holder reads it.
		for _, task := range messageTasks(got) {
			_, code, err := c.timed(ctx, d.st, "pact_message", map[string]any{"mandate_id": a.r.agent.mandate, "task_id": task})
			d.fine(ctx, a, "pact_message", code, err)
		}
		order := d.claimOrder(a, got)
		for _, id := range order {
			d.woken(id, now)
		}
		for _, id := range order {
			_, code, err := c.timed(ctx, d.st, "pact_claim", map[string]any{"mandate_id": a.r.agent.mandate, "task_id": id})
			if lostClaim(code, err) || !d.fine(ctx, a, "pact_claim", code, err) {
				continue
			}
			if d.o.people > 0 && a.rng.IntN(10) == 0 { // a person decides: the console's people resume it (day_people.go)
				_, code, err = c.timed(ctx, d.st, "pact_defer", map[string]any{"mandate_id": a.r.agent.mandate, "task_id": id,
					"reason": "Needs a person's go-ahead before it ships."})
				if d.fine(ctx, a, "pact_defer", code, err) {
					d.deferredAt(id, time.Now())
				}
				break
			}
			_, code, err = c.timed(ctx, d.st, "pact_message", map[string]any{"mandate_id": a.r.agent.mandate, "task_id": id,
				"body": "On it."})
			d.fine(ctx, a, "pact_message", code, err)
			_, code, err = c.timed(ctx, d.st, "pact_report", map[string]any{"mandate_id": a.r.agent.mandate, "task_id": id,
				"status": "completed", "result": "Done.\n\n## Handoff\n- Done: the task\n- Left / next: nothing"})
			d.fine(ctx, a, "pact_report", code, err)
			break
		}
	}
}

// messageTasks are the tasks of a pact_events answer's unread messages,
// each once, in the order they came.
func messageTasks(got map[string]any) []string {
	var tasks []string
	seen := map[string]bool{}
	list, _ := got["messages"].([]any)
	for _, m := range list {
		id, _ := m.(map[string]any)["task_id"].(string)
		if id != "" && !seen[id] {
			seen[id] = true
			tasks = append(tasks, id)
		}
	}
	return tasks
}

// lostClaim reports whether a claim was refused because another agent's
// claim, a deferral or a person's resumption got to the task first: the
// day's races, not problems.
func lostClaim(code string, err error) bool {
	return code == "already_claimed" || code == "invalid_request" && err != nil &&
		(strings.Contains(err.Error(), "(deferred) and cannot be claimed") || strings.Contains(err.Error(), "claim it again"))
}

// claimOrder is the tasks of a pact_events answer in the order a holder
// tries them: offered to it first (as listed), then the others shuffled.
func (d *dayRun) claimOrder(a *dayAgent, got map[string]any) []string {
	offered := map[string]bool{}
	if list, ok := got["offered"].([]any); ok {
		for _, id := range list {
			if s, ok := id.(string); ok {
				offered[s] = true
			}
		}
	}
	var first, rest []string
	tasks, _ := got["tasks"].([]any)
	for _, t := range tasks {
		id, _ := t.(map[string]any)["id"].(string)
		if offered[id] {
			first = append(first, id)
		} else {
			rest = append(rest, id)
		}
	}
	a.rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	return append(first, rest...)
}

// woken records how long task id took from its post's answer to a holder.
// A holder may be told before the poster has its answer: the wake then
// counts as 0, when the answer comes (posted).
func (d *dayRun) woken(id string, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.posted[id]; ok {
		d.wakes = append(d.wakes, max(0, at.Sub(p)))
		delete(d.posted, id)
	} else if _, seen := d.told[id]; !seen {
		d.told[id] = at
	}
}

// answered records that the post of task id was answered at at.
func (d *dayRun) answered(id string, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.told[id]; ok {
		d.wakes = append(d.wakes, 0)
		delete(d.told, id)
		return
	}
	d.posted[id] = at
}

// work is a worker's day: a pause of 0.5 to 2 × dayPause, then one call of
// the mix, on the next board.
func (d *dayRun) work(ctx context.Context, a *dayAgent) {
	for ctx.Err() == nil {
		sleep(ctx, time.Duration((0.5+1.5*a.rng.Float64())*float64(d.o.dayPause)))
		if ctx.Err() != nil {
			return
		}
		tool, args := d.pick(a)
		got, code, err := a.r.next().timed(ctx, d.st, tool, args)
		if !d.fine(ctx, a, tool, code, err) {
			continue
		}
		if tool == "pact_post" {
			id, _ := got["task_id"].(string)
			d.answered(id, time.Now())
		}
	}
}

// pick draws a call of the mix: of 100, 30 pact_list, 20 pact_post, 15
// pact_note (the project's notes, or one of them), 15 get_pact, 18
// post_pact_message and 2 raise_pact_decision in a pact it sits in. A call it cannot make (no pact)
// is a pact_list. (Messages on tasks come from the holders, which work
// them.)
func (d *dayRun) pick(a *dayAgent) (string, map[string]any) {
	m := a.r.agent.mandate
	n := a.rng.IntN(100)
	switch {
	case n < 30:
	case n < 50:
		return "pact_post", map[string]any{"mandate_id": m, "project_id": a.project,
			"title": fmt.Sprintf("Task %d of %s", a.rng.IntN(1_000_000), a.r.agent.id), "body": "Part of the day's work."}
	case n < 65:
		return "pact_note", map[string]any{"mandate_id": m, "project_id": a.project}
	case n < 80 && len(a.pacts) > 0:
		return "get_pact", map[string]any{"mandate_id": m, "pact_id": a.pacts[a.rng.IntN(len(a.pacts))]}
	case n < 98 && len(a.pacts) > 0:
		return "post_pact_message", map[string]any{"mandate_id": m, "pact_id": a.pacts[a.rng.IntN(len(a.pacts))],
			"body": "An update on my part."}
	case n < 100 && len(a.pacts) > 0:
		return "raise_pact_decision", map[string]any{"mandate_id": m, "pact_id": a.pacts[a.rng.IntN(len(a.pacts))],
			"question": "Ship the change today or wait for the review?", "options": []string{"Ship today", "Wait for the review"}}
	}
	return "pact_list", map[string]any{"mandate_id": m, "project_id": a.project, "limit": 20}
}

// fine reports whether a call was answered; an unanswered or refused one
// is a problem, and the agent pauses before its next call.
func (d *dayRun) fine(ctx context.Context, a *dayAgent, tool, code string, err error) bool {
	switch {
	case code == "":
		return true
	case ctx.Err() != nil:
	default:
		d.problem("%s: %s: %s: %v", a.r.agent.id, tool, code, err)
		sleep(ctx, 100*time.Millisecond)
	}
	return false
}

// report prints the figures and fails on any problem.
func (d *dayRun) report(out io.Writer, elapsed time.Duration, worstQueue time.Duration) error {
	fmt.Fprintf(out, "  %s of load (pact_events is held: its latency is the hold; see the wake latency)\n",
		elapsed.Round(time.Millisecond))
	d.st.printRates(out, elapsed)
	d.mu.Lock()
	defer d.mu.Unlock()
	p50, p99, top := percentiles(d.wakes)
	fmt.Fprintf(out, "  wake latency (post answered → a holder told): n=%d p50=%s p99=%s max=%s; posted tasks no holder was told of within the run: %d\n",
		len(d.wakes), round(p50), round(p99), round(top), len(d.posted))
	if d.o.people > 0 {
		p50, p99, top = percentiles(d.waits)
		fmt.Fprintf(out, "  a person's answer (deferral answered → resumed in the console): n=%d p50=%s p99=%s max=%s; deferred tasks no person resumed within the run: %d\n",
			len(d.waits), round(p50), round(p99), round(top), len(d.deferred))
	}
	fmt.Fprintf(out, "  log integration: the oldest entry waiting, sampled every second, waited at most %s\n", round(worstQueue))
	if len(d.problems) > 0 {
		return fmt.Errorf("%d problems, first: %v", len(d.problems), d.problems)
	}
	return nil
}
