package board_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// An offer whose lease ran out is never made again to the holder that let
// it run out (docs/events.md, "Offers"): with that holder the only one on
// the project, the round drops the offer instead of waking it again, and
// the task stays on the board, open, for whoever holds pact_events next.
// This is what the round passes task_offer as the holder to skip: the
// holder read back from the expired offer, as text.
func TestAnOfferWhoseLeaseRanOutIsNotMadeAgainToTheSameHolder(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, nil)
	w.holdEvents("holder-1")
	task := w.post("code-web", "web", "Offered once", nil)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_offers WHERE task_id = ? AND agent_id = 'holder-1'`, task),
		"the only holder is offered the task")
	w.Exec(`UPDATE task_offers SET lease_until = now() - interval '1 second' WHERE task_id = ?`, task)
	runKernel(t, w.Kernel)
	// A round either drops the offer or (wrongly) makes it again, offers 2.
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM task_offers WHERE task_id = ? AND offers = 1`, task) == 0
	}, 15*time.Second, 20*time.Millisecond, "a round handled the offer whose lease ran out")
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM task_offers WHERE task_id = ?`, task),
		"the holder that let the lease run out is not offered the task again")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND assignee IS NULL`, task),
		"the task is still open on the board")
}

// One round offers again every task whose offer's lease ran out, not one
// task a round: three expired offers are made again together, each to the
// other holder, in one transaction, so no reading ever sees some of them
// offered again and others not (with one task a round, the third would
// wait two more seconds).
func TestOneRoundOffersAgainEveryOfferWhoseLeaseRanOut(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, nil)
	w.holdEvents("holder-1")
	w.holdEvents("holder-2")
	tasks := []string{w.post("code-web", "web", "One", nil), w.post("code-web", "web", "Two", nil),
		w.post("code-web", "web", "Three", nil)}
	require.Equal(t, 3, w.Count(`SELECT count(*) FROM task_offers WHERE task_id IN (?)`, bun.List(tasks)))
	before := map[string]string{}
	for _, task := range tasks {
		var holder string
		require.NoError(t, w.DB.NewRaw(`SELECT agent_id FROM task_offers WHERE task_id = ?`, task).Scan(t.Context(), &holder))
		before[task] = holder
	}
	w.Exec(`UPDATE task_offers SET lease_until = now() - interval '1 second' WHERE task_id IN (?)`, bun.List(tasks))
	runKernel(t, w.Kernel)

	again := `SELECT count(*) FROM task_offers WHERE task_id IN (?) AND offers > 1`
	var seen int
	require.Eventually(t, func() bool {
		seen = w.Count(again, bun.List(tasks))
		return seen > 0
	}, 15*time.Second, 10*time.Millisecond, "a round offered the tasks again")
	require.Equal(t, 3, seen, "the first round that offered one again offered all three")
	for _, task := range tasks {
		require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_offers WHERE task_id = ? AND agent_id <> ?`, task, before[task]),
			"task %s is offered to the other holder", task)
	}
}

// An agent that defers a task naming no scopes (needed_scope: []) stores
// what one that leaves needed_scope out does: no needed scope (NULL), not
// an empty list, so "no scope known" is one state whichever way the agent
// said it.
func TestADeferralNamingNoScopesStoresNoNeededScope(t *testing.T) {
	w := newWorld(t)
	root := w.Root("gemini-web")
	empty := w.post("code-web", "web", "Empty list", nil)
	left := w.post("code-web", "web", "Left out", nil)
	w.OK("gemini-web", "pact_defer", map[string]any{"task_id": empty, "reason": "needs a person", "mandate_id": root,
		"needed_scope": []any{}})
	w.OK("gemini-web", "pact_defer", map[string]any{"task_id": left, "reason": "needs a person", "mandate_id": root})
	for _, task := range []string{empty, left} {
		require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'input_required' AND needed_scope IS NULL`, task),
			"task %s has no needed scope", task)
	}
}
