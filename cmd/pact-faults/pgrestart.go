package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// runPGRestart is scenario 3, PostgreSQL restarts under load (REL-020):
// writers post and watchers hold pact_events through every board while the
// one PostgreSQL under them is stopped, fast and immediate in turn, and
// started again. Each round a listener on every board holds pact_wait
// through the outage; during it every board must refuse calls with 503
// unavailable and the documented message; after it every board must answer
// again by itself within seconds, and every held wait must return the
// message committed after the restart (LISTEN reconnected: no lost
// wakeup). Afterwards, as in scenario 2, nothing acknowledged is lost.
func runPGRestart(ctx context.Context, o options, out io.Writer) (err error) {
	s, err := startShared(ctx, o, o.boards)
	if err != nil {
		return err
	}
	defer func() { s.close(err != nil, out) }()
	// Calls during the outage are refused unavailable: expected, counted.
	k := &killRun{s: s, st: newStats(), out: out, tolerate: map[string]bool{"unavailable": true}}
	c, err := k.hire(ctx, o.writers, true)
	if err != nil {
		return err
	}
	th, err := k.thread(ctx)
	if err != nil {
		return err
	}
	rounds := 4
	if o.roundsSet {
		rounds = o.rounds
	}
	stopLoad := c.runLoad(ctx, k.write, k.watch)
	start := time.Now()
	var figs []outage
	for round := 0; round < rounds && ctx.Err() == nil; round++ {
		sleep(ctx, o.roundFor)
		mode := []string{"fast", "immediate"}[round%2]
		f, err := k.pgRound(ctx, th, mode, round)
		if err != nil {
			stopLoad()
			return fmt.Errorf("round %d (-m %s): %w", round+1, mode, err)
		}
		fmt.Fprintf(out, "  round %d: -m %s; down %s; refused unavailable %d of %d outage calls; boards answered %s after the server; %d/%d held waits got the message, the last %s after it was sent\n",
			round+1, mode, round3(f.down), f.refused, f.probed, listDurations(f.recovered), f.woken, len(th.listeners), round3(f.lastWake))
		figs = append(figs, f)
	}
	sleep(ctx, o.roundFor)
	all := stopLoad()
	elapsed := time.Since(start)
	for _, w := range c.watchers {
		if err := k.drain(ctx, w); err != nil {
			return err
		}
	}
	return k.checkPG(ctx, o, elapsed, all, c.watchers, figs)
}

func round3(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

func listDurations(ds []time.Duration) string {
	out := ""
	for i, d := range ds {
		if i > 0 {
			out += ", "
		}
		out += round3(d).String()
	}
	return out
}

// checkPG is the end of scenario 3: what was acknowledged is all there,
// the log verifies and the watchers missed nothing.
func (k *killRun) checkPG(ctx context.Context, o options, elapsed time.Duration, acked []string, watchers []*watcher, figs []outage) error {
	a, err := k.s.audit(ctx, acked)
	if err != nil {
		return err
	}
	entries, err := k.s.verifyLog(ctx)
	if err != nil {
		return err
	}
	missed, watched := 0, 0
	for _, w := range watchers {
		for _, id := range acked {
			watched++
			if !w.seen[id] {
				missed++
			}
		}
	}
	var recovered []time.Duration
	for _, f := range figs {
		recovered = append(recovered, f.recovered...)
	}
	p50, p99, top := percentiles(recovered)
	fmt.Fprintf(k.out, "  %d restarts of PostgreSQL under %d boards in %s; %d writers, 2 watchers, %d held waits a round\n",
		len(figs), len(k.s.boards), elapsed.Round(time.Millisecond), o.writers, len(k.s.boards))
	fmt.Fprintf(k.out, "  acknowledged posts: %d, lost: %d; tasks without a log entry: %d; log: %d entries verified\n",
		len(acked), len(a.lost), a.orphans, entries)
	fmt.Fprintf(k.out, "  acknowledged tasks a watcher's pact_events never returned: %d (of %d watched)\n", missed, watched)
	fmt.Fprintf(k.out, "  server back to a board's answer: p50=%s p99=%s max=%s\n", round(p50), round(p99), round(top))
	k.st.print(k.out)
	switch {
	case len(a.lost) > 0:
		return fmt.Errorf("%d acknowledged tasks are lost, first %s", len(a.lost), a.lost[0])
	case a.orphans > 0:
		return fmt.Errorf("%d tasks have no log entry: half-written", a.orphans)
	case missed > 0:
		return fmt.Errorf("the watchers missed %d acknowledged tasks", missed)
	case len(k.problems) > 0:
		return fmt.Errorf("%d problems, first: %s", len(k.problems), k.problems[0])
	}
	return nil
}
