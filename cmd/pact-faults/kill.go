package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// runKill is scenario 2, kill -9 of a board under load (REL-011): writers
// post tasks through every board in turn while watchers hold pact_events;
// each round SIGKILLs one board, whose clients fail and carry on through
// another, then restarts it. Afterwards every acknowledged task must be in
// the database with its log entry, the log must verify, and every watcher,
// re-issuing its held call elsewhere with its last next_since, must have
// seen every acknowledged task.
func runKill(ctx context.Context, o options, out io.Writer) (err error) {
	if o.boards < 2 {
		return fmt.Errorf("-boards %d: killing a board needs another to carry on through", o.boards)
	}
	s, err := startShared(ctx, o, o.boards)
	if err != nil {
		return err
	}
	defer func() { s.close(err != nil, out) }()
	st := newStats()
	k := &killRun{s: s, st: st, out: out}
	c, err := k.hire(ctx, o.writers, true)
	if err != nil {
		return err
	}
	// The load runs until every round is over.
	stopLoad := c.runLoad(ctx, k.write, k.watch)
	start := time.Now()
	var restarts []time.Duration
	var quietAcked []string
	for round := 0; round < o.rounds && ctx.Err() == nil; round++ {
		sleep(ctx, o.roundFor)
		victim := round % len(s.boards)
		id, restart, err := k.round(ctx, o, c, victim)
		if err != nil {
			stopLoad()
			return fmt.Errorf("round %d (%s): %w", round+1, s.boards[victim].name, err)
		}
		quietAcked = append(quietAcked, id)
		restarts = append(restarts, restart)
	}
	sleep(ctx, o.roundFor)
	all := stopLoad()
	elapsed := time.Since(start)

	// Every watcher catches up on what is left, on its home board.
	for _, w := range c.watchers {
		if err := k.drain(ctx, w); err != nil {
			return err
		}
	}
	return k.check(ctx, o, elapsed, all, quietAcked, c.watchers, restarts)
}

// killRun is one run of the scenario: the boards, the figures and what went wrong.
type killRun struct {
	s   *shared
	st  *stats
	out io.Writer

	// tolerate are refusals a scenario expects under its fault (scenario
	// 3: unavailable while PostgreSQL is down): counted, not problems.
	tolerate map[string]bool

	mu        sync.Mutex
	problems  []string
	heldEnded int // held calls on a killed board that ended with an error
}

func (k *killRun) problem(format string, args ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.problems = append(k.problems, fmt.Sprintf(format, args...))
}

// roaming is one agent with a session on every board, and the board it
// uses now.
type roaming struct {
	agent   agentCreds
	clients []*client
	mu      sync.Mutex
	cur     int
}

func (k *killRun) roam(a agentCreds, first int) *roaming {
	return roamOver(boardURLs(k.s.boards), a, first)
}

// next moves r to the following board, and returns its client.
func (r *roaming) next() *client {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = (r.cur + 1) % len(r.clients)
	return r.clients[r.cur]
}

// write posts tasks until ctx ends, each through the next board; a call
// that gets no answer is retried as a new post on the next board. It
// returns the tasks whose post was answered: those must never be lost.
func (k *killRun) write(ctx context.Context, r *roaming, project string) []string {
	var acked []string
	for n := 0; ctx.Err() == nil; n++ {
		c := r.next()
		got, code, err := c.timed(ctx, k.st, "pact_post", map[string]any{"project_id": project,
			"title": fmt.Sprintf("%s %d", r.agent.id, n), "mandate_id": r.agent.mandate})
		switch {
		case code == "":
			id, _ := got["task_id"].(string)
			acked = append(acked, id)
		case ctx.Err() != nil:
		case code == transportErr || k.tolerate[code]:
			sleep(ctx, 20*time.Millisecond) // the board is down: the next call goes to another
		default:
			k.problem("%s: pact_post refused: %s: %v", r.agent.id, code, err)
			sleep(ctx, 100*time.Millisecond)
		}
	}
	return acked
}

// watcher holds pact_events and remembers every task it was told of.
type watcher struct {
	r       *roaming
	home    int
	project string
	cursor  int64
	seen    map[string]bool
	// reconnected is whether the last answer said reconnect: its board
	// is draining (scenario rolling).
	reconnected bool
}

// events makes one pact_events call through c from w's cursor; on an
// answer it records the tasks and moves the cursor.
func (k *killRun) events(ctx context.Context, w *watcher, c *client, seconds float64) (tasks []string, code string, err error) {
	got, code, err := c.timed(ctx, k.st, "pact_events", map[string]any{"mandate_id": w.r.agent.mandate,
		"since": w.cursor, "seconds": seconds, "project_id": w.project})
	w.reconnected = false
	if code != "" {
		return nil, code, err
	}
	w.reconnected = got["reconnect"] == true
	list, _ := got["tasks"].([]any)
	for _, t := range list {
		id, _ := t.(map[string]any)["id"].(string)
		w.seen[id] = true
		tasks = append(tasks, id)
	}
	if next, ok := got["next_since"].(float64); ok {
		w.cursor = int64(next)
	}
	return tasks, "", nil
}

// watch holds pact_events on w's home board until ctx ends; a call that
// fails is re-issued at once on the next board with the same cursor.
func (k *killRun) watch(ctx context.Context, w *watcher) {
	c := w.r.clients[w.home]
	for ctx.Err() == nil {
		_, code, err := k.events(ctx, w, c, 5)
		switch {
		case code == "":
			c = w.r.clients[w.home]
		case ctx.Err() != nil:
		case code == transportErr || k.tolerate[code]:
			c = w.r.clients[(indexOf(w.r.clients, c)+1)%len(w.r.clients)]
			sleep(ctx, 20*time.Millisecond)
		default:
			k.problem("%s: pact_events refused: %s: %v", w.r.agent.id, code, err)
			sleep(ctx, 100*time.Millisecond)
		}
	}
}

func indexOf(cs []*client, c *client) int {
	for i, x := range cs {
		if x == c {
			return i
		}
	}
	return 0
}

// drain calls pact_events without waiting until it has nothing more to give.
//
// An empty answer does not mean caught up: the cursor stops below the
// oldest transaction still open on the server (docs/events.md, "The
// cursor"), and a board's background work may hold one open for a moment
// after the last post committed. So it stops only once answers have been
// empty for drainSettle.
func (k *killRun) drain(ctx context.Context, w *watcher) error {
	var quiet time.Time
	for {
		tasks, code, err := k.events(ctx, w, w.r.clients[w.home], 0)
		if code != "" {
			return fmt.Errorf("%s: catching up: %s: %w", w.r.agent.id, code, err)
		}
		switch {
		case len(tasks) > 0:
			quiet = time.Time{}
			continue
		case quiet.IsZero():
			quiet = time.Now()
		case time.Since(quiet) >= drainSettle:
			return nil
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

// drainSettle is how long a watcher's answers stay empty before drain
// takes it as caught up.
const drainSettle = 2 * time.Second

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
