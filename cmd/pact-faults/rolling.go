package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// drainSeconds is PACT_DRAIN_SECONDS on the boards of scenario rolling:
// shorter than the default 5, to keep a run short, and still 20 times the
// balancer's check interval.
const drainSeconds = 2

// attempts is how many boards a client of scenario rolling tries a call on.
const attempts = 3

// runRolling is scenario 5, a rolling restart by SIGTERM (REL-012): writers
// post tasks without pause and watchers hold pact_events, all through a
// load balancer that routes on /readyz, retrying a failed call on another
// ready board. Each round SIGTERMs one board, which must leave /readyz
// before it stops listening, finish its calls in flight and answer its held
// calls with reconnect, then starts it again. Afterwards no call failed on
// every attempt, every acknowledged task is in the database with its log
// entry, the log verifies, and every watcher saw every acknowledged task.
func runRolling(ctx context.Context, o options, out io.Writer) (err error) {
	if !o.roundsSet {
		o.rounds = 9
	}
	o.boardEnv = map[string]string{"PACT_DRAIN_SECONDS": fmt.Sprint(drainSeconds)}
	s, err := startShared(ctx, o, 3)
	if err != nil {
		return err
	}
	defer func() { s.close(err != nil, out) }()
	lbCtx, stopLB := context.WithCancel(ctx)
	defer stopLB()
	r := &rollingRun{killRun: &killRun{s: s, st: newStats(), out: out}, lb: newBalancer(lbCtx, s.boards),
		calls: map[string]*outcomes{}, flights: map[int]map[*flight]bool{}}
	c, err := r.hire(ctx, o.writers, false)
	if err != nil {
		return err
	}
	stopLoad := c.runLoad(ctx, r.write, r.watch)
	start := time.Now()
	for round := 0; round < o.rounds && ctx.Err() == nil; round++ {
		sleep(ctx, o.roundFor)
		victim := round % len(s.boards)
		if err := r.round(ctx, c.probe, victim); err != nil {
			stopLoad()
			return fmt.Errorf("round %d (%s): %w", round+1, s.boards[victim].name, err)
		}
	}
	sleep(ctx, o.roundFor)
	all := stopLoad()
	elapsed := time.Since(start)
	for _, w := range c.watchers {
		if err := r.drain(ctx, w); err != nil {
			return err
		}
	}
	return r.check(ctx, o, elapsed, all, c.watchers)
}

// rollingRun is one run of scenario rolling.
type rollingRun struct {
	*killRun
	lb *balancer

	cmu        sync.Mutex
	calls      map[string]*outcomes     // by tool
	flights    map[int]map[*flight]bool // attempts in flight, by board
	reconnects int                      // watchers' answers with reconnect
	retriedWhy []string                 // why attempts were retried, the first few
	cutOff     int                      // posts the end of the load cancelled
	cutAtTerm  []string                 // calls in flight at a SIGTERM that got no answer

	// by round
	readyz503, exits, restarts, probeAnswered []time.Duration
	inFlight, inFlightAnswered, heldReconnect int
}

// outcomes counts a tool's calls through the balancer, each of up to
// three attempts.
type outcomes struct{ first, retried, refused, failed int }

// flight is one attempt, on one board.
type flight struct {
	tool      string
	done      chan struct{}
	code      string
	err       error
	reconnect bool
}

func (r *rollingRun) begin(board int, tool string) *flight {
	f := &flight{tool: tool, done: make(chan struct{})}
	r.cmu.Lock()
	defer r.cmu.Unlock()
	if r.flights[board] == nil {
		r.flights[board] = map[*flight]bool{}
	}
	r.flights[board][f] = true
	return f
}

func (r *rollingRun) end(board int, f *flight, code string, reconnect bool, err error) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	delete(r.flights[board], f)
	f.code, f.reconnect, f.err = code, reconnect, err
	close(f.done)
}

// inFlightOn is the attempts on board now.
func (r *rollingRun) inFlightOn(board int) []*flight {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	var fs []*flight
	for f := range r.flights[board] {
		fs = append(fs, f)
	}
	return fs
}

// try makes one call through the balancer: each attempt goes to the next
// ready board other than the one the last attempt failed on (or avoid), up
// to three; only a transport error or an unavailable refusal is retried.
// It returns the last attempt's outcome and its board.
func (r *rollingRun) try(ctx context.Context, tool string, avoid int, rd *roaming,
	attempt func(c *client) (code string, reconnect bool, err error)) (code string, board int, err error) {
	for n := 1; n <= attempts; n++ {
		board, err = r.lb.pick(ctx, avoid)
		if err != nil {
			code = transportErr
		} else {
			f := r.begin(board, tool)
			var reconnect bool
			code, reconnect, err = attempt(rd.clients[board])
			r.end(board, f, code, reconnect, err)
		}
		if ctx.Err() != nil {
			return code, board, err
		}
		if code != transportErr && code != "unavailable" {
			r.count(tool, func(o *outcomes) {
				switch {
				case code != "":
					o.refused++
				case n == 1:
					o.first++
				default:
					o.retried++
				}
			})
			return code, board, err
		}
		r.cmu.Lock()
		if len(r.retriedWhy) < 5 {
			r.retriedWhy = append(r.retriedWhy, fmt.Sprintf("%s on %s: %s: %v", tool, r.s.boards[board].name, code, err))
		}
		r.cmu.Unlock()
		avoid = board
	}
	r.count(tool, func(o *outcomes) { o.failed++ })
	r.problem("%s: %s failed on %d boards, last: %s: %v", rd.agent.id, tool, attempts, code, err)
	return code, board, err
}

func (r *rollingRun) count(tool string, f func(*outcomes)) {
	r.cmu.Lock()
	defer r.cmu.Unlock()
	if r.calls[tool] == nil {
		r.calls[tool] = &outcomes{}
	}
	f(r.calls[tool])
}

// write posts tasks until ctx ends; it returns the tasks whose post was
// answered (a post retried after a transport error may have committed
// too: only the answered ones count).
func (r *rollingRun) write(ctx context.Context, rd *roaming, project string) []string {
	var acked []string
	for n := 0; ctx.Err() == nil; n++ {
		var id string
		code, _, err := r.try(ctx, "pact_post", -1, rd, func(c *client) (string, bool, error) {
			got, code, err := c.timed(ctx, r.st, "pact_post", map[string]any{"project_id": project,
				"title": fmt.Sprintf("%s %d", rd.agent.id, n), "mandate_id": rd.agent.mandate})
			id, _ = got["task_id"].(string)
			return code, false, err
		})
		switch {
		case code == "":
			acked = append(acked, id)
		case ctx.Err() != nil:
			r.cmu.Lock()
			r.cutOff++
			r.cmu.Unlock()
		case code != transportErr && code != "unavailable":
			r.problem("%s: pact_post refused: %s: %v", rd.agent.id, code, err)
			sleep(ctx, 100*time.Millisecond)
		}
	}
	return acked
}

// watch holds pact_events through the balancer until ctx ends, passing
// next_since back; an answer with reconnect is re-issued at once on
// another ready board.
func (r *rollingRun) watch(ctx context.Context, w *watcher) {
	avoid := -1
	for ctx.Err() == nil {
		code, board, err := r.try(ctx, "pact_events", avoid, w.r, func(c *client) (string, bool, error) {
			_, code, err := r.events(ctx, w, c, 10)
			return code, w.reconnected, err
		})
		avoid = -1
		switch {
		case code == "" && w.reconnected:
			r.cmu.Lock()
			r.reconnects++
			r.cmu.Unlock()
			avoid = board
		case code == "", ctx.Err() != nil:
		case code != transportErr && code != "unavailable":
			r.problem("%s: pact_events refused: %s: %v", w.r.agent.id, code, err)
			sleep(ctx, 100*time.Millisecond)
		}
	}
}
