package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mcpserve/plaincall"
	"github.com/pactboard/pact/modules/people"
)

// offerHolders is how many agents hold pact_events in the offers test.
const offerHolders = 200

// holderCall is one stateless tools/call that ctx can cut off, as a client
// that goes away does; a refusal is an error.
func holderCall(ctx context.Context, base, agent, token, tool string, args map[string]any) (map[string]any, error) {
	_, out, err := plaincall.Call(ctx, nil, base, agent, token, tool, args)
	if err == nil && out["isError"] == true {
		err = fmt.Errorf("%s refused: %v", tool, out["error"])
	}
	return out, err
}

// offerRun is the holders' side of the test: what each was told.
type offerRun struct {
	mu      sync.Mutex
	returns []offerReturn
	claims  map[string]string // task → holder that claimed it
	lost    []string          // claims refused: a lost race
}

type offerReturn struct {
	holder  string
	offered []string
	tasks   int
	at      time.Time
}

// BOARD-011, BOARD-012: with offerHolders agents holding pact_events on one
// project, each task posted wakes exactly one of them, offered the task,
// and no other returns; the one offered claims it without losing a race.
// A holder that dies after its offer (it never claims) costs a lease: the
// task is offered to another, who claims it. A holder whose client went
// away before the offer is never offered anything.
func TestEachTaskIsOfferedToOneHolderAndNoneIsLost(t *testing.T) {
	b := startE2E(t, map[string]string{"PACT_OFFER_LEASE_SECONDS": "1"})
	ctx := context.Background()
	ident := identity.NewService(b.d, ledger.New(nil), nil)
	type holder struct {
		id, token, root string
		mortal          bool // dies when it is offered a task, without claiming it
		cancel          context.CancelFunc
	}
	holders := make([]*holder, offerHolders)
	for i := range holders {
		id := fmt.Sprintf("holder-%03d", i)
		r, err := registerAgent(ctx, b.d, ident, "ana", people.AgentInput{ID: id, Client: "runner", Projects: []string{"web"}})
		require.NoError(t, err)
		holders[i] = &holder{id: id, token: r.Token, root: r.RootMandateID.String()}
	}
	run := &offerRun{claims: map[string]string{}}
	var wg sync.WaitGroup
	hold := func(h *holder) {
		hctx, cancel := context.WithCancel(ctx)
		h.cancel = cancel
		wg.Go(func() {
			since := 0.0
			for hctx.Err() == nil {
				out, err := holderCall(hctx, b.base, h.id, h.token, "pact_events",
					map[string]any{"mandate_id": h.root, "since": since, "seconds": 40})
				if err != nil {
					return
				}
				since = out["next_since"].(float64)
				var offered []string
				for _, id := range out["offered"].([]any) {
					offered = append(offered, id.(string))
				}
				run.mu.Lock()
				run.returns = append(run.returns, offerReturn{holder: h.id, offered: offered,
					tasks: len(out["tasks"].([]any)), at: time.Now()})
				mortal := h.mortal
				run.mu.Unlock()
				if len(offered) > 0 && mortal {
					return // gone, its offer unclaimed
				}
				for _, task := range offered {
					_, err := holderCall(ctx, b.base, h.id, h.token, "pact_claim", map[string]any{"task_id": task, "mandate_id": h.root})
					run.mu.Lock()
					if err != nil {
						run.lost = append(run.lost, task+" by "+h.id+": "+err.Error())
					} else {
						run.claims[task] = h.id
					}
					run.mu.Unlock()
				}
			}
		})
	}
	held := func() int {
		var n int
		require.NoError(t, b.d.Pool.QueryRow(ctx, `SELECT coalesce(sum(holds), 0) FROM event_holders WHERE until > now()`).Scan(&n))
		return n
	}
	for _, h := range holders {
		hold(h)
	}
	require.Eventually(t, func() bool { return held() == offerHolders }, 60*time.Second, 50*time.Millisecond)
	post := func(title string) string {
		out, err := holderCall(ctx, b.base, "code-web", b.tokens["code-web"], "pact_post",
			map[string]any{"mandate_id": b.roots["code-web"], "project_id": "web", "title": title})
		require.NoError(t, err)
		return out["task_id"].(string)
	}
	claimedBy := func(task string) string {
		run.mu.Lock()
		defer run.mu.Unlock()
		return run.claims[task]
	}

	// One offer per task: each post wakes one holder, who claims it.
	const tasks = 30
	for i := range tasks {
		task := post(fmt.Sprintf("offered %d", i))
		require.Eventually(t, func() bool { return claimedBy(task) != "" }, 10*time.Second, 5*time.Millisecond)
		require.Eventually(t, func() bool { return held() == offerHolders }, 10*time.Second, 5*time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // a stray wake would have returned by now
	run.mu.Lock()
	returns := slices.Clone(run.returns)
	run.mu.Unlock()
	// Each task woke exactly one holder, offered it. A holder that has
	// just claimed calls again at once, and a call that starts answers at
	// once with every task it may claim: such a return, without an offer,
	// is no wake. Any other return would be a holder woken for nothing.
	woken := map[string]bool{}
	offered := 0
	for _, r := range returns {
		if len(r.offered) == 0 {
			require.True(t, woken[r.holder], "%s, asleep, woke without an offer: %+v", r.holder, returns)
			continue
		}
		offered++
		require.Len(t, r.offered, 1, "%+v", r)
		require.Equal(t, r.holder, claimedBy(r.offered[0]))
		require.False(t, woken[r.holder], "offers go round: %s was offered twice while others waited", r.holder)
		woken[r.holder] = true
	}
	require.Equal(t, tasks, offered, "each task was offered once: %+v", returns)
	require.Len(t, woken, tasks)
	require.Empty(t, run.lost, "no claim race was lost")

	// A holder that dies with its offer: the task goes to another after
	// the lease (1 s here).
	run.mu.Lock()
	for _, h := range holders {
		h.mortal = true
	}
	run.mu.Unlock()
	run.mu.Lock()
	seen := len(run.returns)
	run.mu.Unlock()
	task := post("offered to a holder that dies")
	var first string
	require.Eventually(t, func() bool {
		run.mu.Lock()
		defer run.mu.Unlock()
		for _, r := range run.returns[seen:] {
			if slices.Contains(r.offered, task) {
				first = r.holder
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond)
	run.mu.Lock()
	for _, h := range holders {
		h.mortal = false
	}
	run.mu.Unlock()
	require.Eventually(t, func() bool { return claimedBy(task) != "" }, 15*time.Second, 20*time.Millisecond,
		"the task is offered again past the lease")
	require.NotEqual(t, first, claimedBy(task))

	// Holders whose clients went away are offered nothing.
	gone := map[string]bool{}
	for _, h := range holders[:100] {
		if h.id != first {
			h.cancel()
			gone[h.id] = true
		}
	}
	if !assert.Eventually(t, func() bool { return held() <= offerHolders-len(gone)-1 }, 20*time.Second, 20*time.Millisecond) {
		rows, err := b.d.Pool.Query(ctx, `SELECT agent_id, holds, (until - now())::text FROM event_holders
			WHERE holds > 0 AND until > now() ORDER BY agent_id`)
		require.NoError(t, err)
		var still []string
		for rows.Next() {
			var agent string
			var holds int
			var left string
			require.NoError(t, rows.Scan(&agent, &holds, &left))
			if gone[agent] || holds > 1 {
				still = append(still, fmt.Sprintf("%s holds=%d for %s (gone: %v)", agent, holds, left, gone[agent]))
			}
		}
		t.Fatalf("holds of departed clients were not released: %v", still)
	}
	for i := range 10 {
		task := post(fmt.Sprintf("after some left %d", i))
		require.Eventually(t, func() bool { return claimedBy(task) != "" }, 15*time.Second, 5*time.Millisecond)
		require.False(t, gone[claimedBy(task)], "a holder that left was offered %s", task)
	}
	require.Empty(t, run.lost)

	// A delegated task wakes its delegate alone, and is offered to nobody.
	delegate := holders[150]
	require.Eventually(t, func() bool { return held() >= offerHolders-len(gone)-1 }, 10*time.Second, 20*time.Millisecond)
	run.mu.Lock()
	before := len(run.returns)
	run.mu.Unlock()
	out, err := holderCall(ctx, b.base, "code-web", b.tokens["code-web"], "pact_post", map[string]any{"mandate_id": b.roots["code-web"],
		"project_id": "web", "title": "for one runner", "delegate_to": delegate.id, "child_limits": map[string]any{"runs": 1}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		run.mu.Lock()
		defer run.mu.Unlock()
		return len(run.returns) > before
	}, 10*time.Second, 5*time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	run.mu.Lock()
	woke := slices.Clone(run.returns[before:])
	run.mu.Unlock()
	require.Len(t, woke, 1, "only the delegate woke: %+v", woke)
	require.Equal(t, delegate.id, woke[0].holder)
	require.Empty(t, woke[0].offered)
	require.Equal(t, 1, woke[0].tasks)
	var offers int
	require.NoError(t, b.d.Pool.QueryRow(ctx, `SELECT count(*) FROM task_offers WHERE task_id = $1`, out["task_id"]).Scan(&offers))
	require.Zero(t, offers)

	for _, h := range holders {
		h.cancel()
	}
	wg.Wait()
}
