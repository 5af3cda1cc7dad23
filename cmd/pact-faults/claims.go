package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// The claim refusal every loser of a race must get (docs/errors.md).
const alreadyClaimed = "already_claimed"

// runClaims is scenario 1, claims across replicas: for each of o.races
// tasks, o.perTask agents, spread over the boards, claim it at once.
// Exactly one must win, every other must be refused with already_claimed,
// the database must name the winner as the task's assignee, and the log
// must verify (REL-010).
func runClaims(ctx context.Context, o options, out io.Writer) (err error) {
	s, err := startShared(ctx, o, o.boards)
	if err != nil {
		return err
	}
	defer func() { s.close(err != nil, out) }()
	const project = "claims"
	if err := s.project(ctx, project); err != nil {
		return err
	}
	poster, err := s.agent(ctx, "poster", project)
	if err != nil {
		return err
	}
	// Each poster and claimer keeps one session per board.
	posters := make([]*client, len(s.boards))
	for i, b := range s.boards {
		posters[i] = newClient(poster, b.url)
	}
	claimers := make([]*client, o.perTask)
	for i := range claimers {
		a, err := s.agent(ctx, fmt.Sprintf("claimer-%d", i), project)
		if err != nil {
			return err
		}
		claimers[i] = newClient(a, s.boards[i%len(s.boards)].url)
	}
	defer func() {
		for _, c := range append(posters, claimers...) {
			c.close()
		}
	}()

	st := newStats()
	var (
		mu       sync.Mutex
		winners  = map[string]string{} // task → the agent whose claim was answered
		problems []string
		done     atomic.Int64
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	start := time.Now()
	next := make(chan int)
	var wg sync.WaitGroup
	for range o.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for race := range next {
				task, win, err := claimRace(ctx, st, posters[race%len(posters)], claimers, poster.mandate, project, race)
				if err != nil {
					fail("race %d: %v", race, err)
					continue
				}
				mu.Lock()
				winners[task] = win
				mu.Unlock()
				if n := done.Add(1); n%1000 == 0 {
					fmt.Fprintf(out, "  %d races in %s\n", n, time.Since(start).Round(time.Second))
				}
			}
		}()
	}
	for race := 0; race < o.races && ctx.Err() == nil; race++ {
		next <- race
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)

	// What the database says, read apart from every board.
	assignees := map[string]string{}
	rows, err := s.db.Pool.Query(ctx, `SELECT id::text, coalesce(assignee, '') FROM tasks WHERE project_id = $1`, project)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, who string
		if err := rows.Scan(&id, &who); err != nil {
			return err
		}
		assignees[id] = who
	}
	if err := rows.Err(); err != nil {
		return err
	}
	mismatched := 0
	for task, win := range winners {
		if assignees[task] != win {
			mismatched++
			fail("task %s: the answered winner is %s, the database says %q", task, win, assignees[task])
		}
	}
	entries, verr := s.verifyLog(ctx)

	fmt.Fprintf(out, "  %d races, %d clients each over %d boards, %d at once, in %s (%.0f races/s)\n",
		done.Load(), o.perTask, len(s.boards), o.parallel, elapsed.Round(time.Millisecond), float64(done.Load())/elapsed.Seconds())
	fmt.Fprintf(out, "  one winner: %d; assignee matches the winner: %d; log: %d entries verified\n",
		len(winners), len(winners)-mismatched, entries)
	st.print(out)
	switch {
	case verr != nil:
		return verr
	case len(problems) > 0:
		return fmt.Errorf("%d races went wrong, first: %v", len(problems), problems)
	case int(done.Load()) != o.races:
		return fmt.Errorf("only %d of %d races ran: %v", done.Load(), o.races, ctx.Err())
	}
	return nil
}

// claimRace posts one task through p, then has every claimer claim it at
// the same instant; it returns the task and the one winner.
func claimRace(ctx context.Context, st *stats, p *client, claimers []*client, mandate, project string, race int) (string, string, error) {
	posted, _, err := p.timed(ctx, st, "pact_post", map[string]any{"project_id": project, "title": fmt.Sprintf("race %d", race),
		"mandate_id": mandate})
	if err != nil {
		return "", "", err
	}
	task, _ := posted["task_id"].(string)
	codes := make([]string, len(claimers))
	errs := make([]error, len(claimers))
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range claimers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			_, codes[i], errs[i] = c.timed(ctx, st, "pact_claim", map[string]any{"task_id": task, "mandate_id": c.agent.mandate})
		}()
	}
	close(gate)
	wg.Wait()
	winner := ""
	for i, code := range codes {
		switch code {
		case "":
			if winner != "" {
				return task, "", fmt.Errorf("task %s: two winners, %s and %s", task, winner, claimers[i].agent.id)
			}
			winner = claimers[i].agent.id
		case alreadyClaimed:
		default:
			return task, "", fmt.Errorf("task %s: %s got %s: %v", task, claimers[i].agent.id, code, errs[i])
		}
	}
	if winner == "" {
		return task, "", fmt.Errorf("task %s: no winner", task)
	}
	return task, winner, nil
}
