package board_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/board"
)

// heldEvents holds pact_events for agent through the tools of a board
// process and reports the answer on a channel.
func heldEvents(t *testing.T, call func(ctx context.Context, agent, tool string, args json.RawMessage) (any, error),
	agent, root string) <-chan map[string]any {
	t.Helper()
	done := make(chan map[string]any, 1)
	go func() {
		raw, _ := json.Marshal(map[string]any{"mandate_id": root, "seconds": 30})
		out, err := call(context.Background(), agent, "pact_events", raw)
		if err != nil {
			done <- map[string]any{"error": err.Error()}
			return
		}
		body, _ := json.Marshal(out)
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		done <- m
	}()
	return done
}

// BOARD-011: two board processes share a database; one runner holds
// pact_events on each. A task posted through the first is offered to one of
// them, whichever process holds it, and only that one returns; the next
// task goes to the other (offers go round).
func TestAnOfferWakesOneHolderWhicheverBoardHoldsIt(t *testing.T) {
	w := newWorld(t)
	w.agent("runner-two", "runner", nil, "web")
	other := w.Twin(board.New())
	here := heldEvents(t, w.Kernel.Tools().Call, "runner-web", w.Root("runner-web"))
	there := heldEvents(t, other.Kernel.Tools().Call, "runner-two", w.Root("runner-two"))
	require.Eventually(t, func() bool {
		return w.Count(`SELECT coalesce(sum(holds), 0) FROM event_holders WHERE until > now()`) == 2
	}, 5*time.Second, 5*time.Millisecond)

	waitOne := func(task string) (string, <-chan map[string]any) {
		select {
		case got := <-here:
			require.Equal(t, []any{task}, got["offered"], "%v", got)
			return "runner-web", there
		case got := <-there:
			require.Equal(t, []any{task}, got["offered"], "%v", got)
			return "runner-two", here
		case <-time.After(10 * time.Second):
			t.Fatal("no holder was offered the task")
		}
		return "", nil
	}
	first := w.post("code-web", "web", "one", nil)
	woken, still := waitOne(first)
	select {
	case got := <-still:
		t.Fatalf("a second holder woke for one task: %v", got)
	case <-time.After(300 * time.Millisecond):
	}
	w.OK(woken, "pact_claim", map[string]any{"task_id": first, "mandate_id": w.Root(woken)})
	second := w.post("code-web", "web", "two", nil)
	select {
	case got := <-still:
		require.Equal(t, []any{second}, got["offered"], "%v", got)
	case <-time.After(10 * time.Second):
		t.Fatal("the other holder was not offered the next task")
	}
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM task_offers`))
}

// BOARD-011: offers go round. 100 agents hold pact_events on a project and
// 10,000 tasks are offered from four connections at once: no holder gets
// more than twice its fair share (100).
func TestOffersGoRoundFairly(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for i := range 100 {
		w.Exec(`INSERT INTO event_holders (agent_id, projects, holds, until) VALUES (?, '{web}', 1, now() + interval '1 hour')`,
			fmt.Sprintf("holder-%03d", i))
	}
	const tasks, workers = 10000, 4
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Go(func() {
			for i := g; i < tasks; i += workers {
				if _, err := w.DB.ExecContext(ctx, `SELECT task_offer(gen_random_uuid(), 'web', 'default', 3600)`); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	require.NoError(t, <-errs)
	var most, least, offered int
	require.NoError(t, w.DB.NewRaw(`SELECT max(n), min(n), sum(n) FROM (SELECT count(*) AS n FROM task_offers GROUP BY agent_id) c`).
		Scan(ctx, &most, &least, &offered))
	t.Logf("10,000 offers over 100 holders: the most to one holder %d, the least %d", most, least)
	require.Equal(t, tasks, offered, "every task was offered")
	require.LessOrEqual(t, most, 2*tasks/100)
}
