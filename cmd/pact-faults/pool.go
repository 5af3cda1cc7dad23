package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/pactboard/pact/core/db"
)

// poolEnv are scenario 6's board settings: a pool far smaller than the
// calls made at once, and short deadlines.
var poolEnv = map[string]string{"PACT_DB_MAX_CONNS": "2", "PACT_DB_ACQUIRE_TIMEOUT": "1", "PACT_DB_STATEMENT_TIMEOUT": "2"}

// poolCallers is how many calls each board is given at once.
const poolCallers = 20

// runPool is scenario 6, the pool runs out (REL-021). Every board has 2
// database connections and takes 20 calls at once, in three phases:
// with nothing in the way, every call is answered (they queue for the
// connections); with every call's log entry held up by another session for 4 s,
// every call still ends within 15 s, answered or refused 503 unavailable
// with the busy or the statement-timeout message, and none hangs; with the
// lock gone, every call is answered again and no board session is left
// waiting.
func runPool(ctx context.Context, o options, out io.Writer) (err error) {
	o.boardEnv = maps.Clone(o.boardEnv)
	if o.boardEnv == nil {
		o.boardEnv = map[string]string{}
	}
	maps.Copy(o.boardEnv, poolEnv)
	s, err := startShared(ctx, o, o.boards)
	if err != nil {
		return err
	}
	defer func() { s.close(err != nil, out) }()
	if err := s.project(ctx, loadProject); err != nil {
		return err
	}
	callers := make([]agentCreds, 4)
	for i := range callers {
		if callers[i], err = s.agent(ctx, fmt.Sprintf("caller-%d", i), loadProject); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "  %d boards, each with PACT_DB_MAX_CONNS=%s PACT_DB_ACQUIRE_TIMEOUT=%s PACT_DB_STATEMENT_TIMEOUT=%s, given %d calls at once (half pact_list, half pact_post)\n",
		len(s.boards), poolEnv["PACT_DB_MAX_CONNS"], poolEnv["PACT_DB_ACQUIRE_TIMEOUT"], poolEnv["PACT_DB_STATEMENT_TIMEOUT"], poolCallers)
	queued := burst(ctx, s, callers)
	fmt.Fprintf(out, "  nothing in the way: %s\n", queued)

	lock, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	// Every call ends in a log entry, whose foreign key takes a KEY SHARE
	// lock on its organization's row; FOR UPDATE excludes it, so each
	// call's last statement waits for this session.
	if _, err := lock.ExecContext(ctx, "SELECT 1 FROM orgs WHERE id = 'default' FOR UPDATE"); err != nil {
		_ = lock.Rollback()
		return err
	}
	unlock := time.AfterFunc(4*time.Second, func() { _ = lock.Rollback() })
	stuck := burst(ctx, s, callers)
	unlock.Stop()
	_ = lock.Rollback()
	fmt.Fprintf(out, "  the organization's row locked for 4s by another session: %s\n", stuck)

	after := burst(ctx, s, callers)
	fmt.Fprintf(out, "  the lock gone: %s\n", after)
	var waiting int
	if err := s.db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = 'pact' AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
		return err
	}
	fmt.Fprintf(out, "  board sessions still waiting on a lock: %d\n", waiting)
	switch {
	case queued.ok != queued.calls:
		return fmt.Errorf("with nothing in the way, %d of %d calls were not answered: %v", queued.calls-queued.ok, queued.calls, queued.other)
	case len(stuck.other) > 0:
		return fmt.Errorf("under the lock, %d calls ended neither answered nor refused unavailable with a documented message, first: %s",
			len(stuck.other), stuck.other[0])
	case stuck.slowest > 15*time.Second:
		return fmt.Errorf("under the lock, a call took %s", stuck.slowest)
	case after.ok != after.calls:
		return fmt.Errorf("after the lock, %d of %d calls were not answered: %v", after.calls-after.ok, after.calls, after.other)
	case waiting > 0:
		return fmt.Errorf("%d board sessions still wait on a lock", waiting)
	}
	return nil
}

// burstResult counts how the calls of one burst ended.
type burstResult struct {
	calls, ok, busy, timedOut int
	other                     []string
	slowest                   time.Duration
	took                      []time.Duration
}

func (b burstResult) String() string {
	p50, p99, top := percentiles(b.took)
	return fmt.Sprintf("%d calls: answered %d, refused busy %d, refused statement timeout %d, other %d; p50=%s p99=%s max=%s",
		b.calls, b.ok, b.busy, b.timedOut, len(b.other), round(p50), round(p99), round(top))
}

// burst makes poolCallers calls at once on every board and waits for all.
func burst(ctx context.Context, s *shared, callers []agentCreds) burstResult {
	var mu sync.Mutex
	var r burstResult
	var wg sync.WaitGroup
	for _, b := range s.boards {
		for i := range poolCallers {
			wg.Go(func() {
				a := callers[i%len(callers)]
				tool, args := "pact_list", map[string]any{"mandate_id": a.mandate, "project_id": loadProject}
				if i%2 == 1 {
					tool, args = "pact_post", map[string]any{"mandate_id": a.mandate, "project_id": loadProject,
						"title": fmt.Sprintf("burst %s %d", b.name, i)}
				}
				start := time.Now()
				status, body, err := plainCall(ctx, b.url, a, tool, args)
				took := time.Since(start)
				mu.Lock()
				defer mu.Unlock()
				r.calls++
				r.took = append(r.took, took)
				r.slowest = max(r.slowest, took)
				switch msg, _ := body["message"].(string); {
				case err == nil && status == http.StatusOK && body["isError"] == nil:
					r.ok++
				case err == nil && body["error"] == "unavailable" && msg == db.BusyMessage:
					r.busy++
				case err == nil && body["error"] == "unavailable" && msg == db.TimeoutMessage:
					r.timedOut++
				default:
					r.other = append(r.other, fmt.Sprintf("%s on %s: %d %v %v", tool, b.name, status, body, err))
				}
			})
		}
	}
	wg.Wait()
	slices.Sort(r.took)
	return r
}
