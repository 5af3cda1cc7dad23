package mandate_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// usage returns every limit_usage row as "mandate/key" -> used.
func (w *world) usage() map[string]float64 {
	w.tb.Helper()
	rows, err := w.d.QueryContext(w.ctx, "SELECT mandate_id::text, limit_key, used::float8 FROM limit_usage")
	require.NoError(w.tb, err)
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var id, key string
		var used float64
		require.NoError(w.tb, rows.Scan(&id, &key, &used))
		out[id+"/"+key] = used
	}
	require.NoError(w.tb, rows.Err())
	return out
}

// consume verifies m and consumes amounts through its chain in one transaction.
func (w *world) consume(m *mandate.Mandate, amounts map[string]float64, strict bool) ([]string, error) {
	var over []string
	err := w.tx(func(tx bun.IDB) error {
		c, err := w.svc.Verify(w.ctx, tx, m.ID.String(), m.Holder)
		if err != nil {
			return err
		}
		over, err = w.svc.Consume(w.ctx, tx, c, amounts, strict)
		return err
	})
	return over, err
}

func (w *world) remaining(m *mandate.Mandate) map[string]float64 {
	w.tb.Helper()
	var left map[string]float64
	require.NoError(w.tb, w.tx(func(tx bun.IDB) error {
		c, err := w.svc.Verify(w.ctx, tx, m.ID.String(), m.Holder)
		if err != nil {
			return err
		}
		left, err = w.svc.Remaining(w.ctx, tx, c)
		return err
	}))
	return left
}

func TestConsumeCountsAgainstEveryLinkThatLimitsTheKey(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, map[string]float64{"thb": 100000, "tasks": 10}, 2)
	kids := []*mandate.Mandate{
		w.child(root, "a2", web, map[string]float64{"thb": 100000}),
		w.child(root, "a3", web, map[string]float64{"thb": 100000}),
		w.child(root, "a4", web, map[string]float64{"thb": 100000}),
	}
	rid := root.ID.String()

	over, err := w.consume(kids[0], map[string]float64{"thb": 40000, "tasks": 1, "unlimited": 5}, true)
	require.NoError(t, err)
	require.Empty(t, over)
	_, err = w.consume(kids[1], map[string]float64{"thb": 40000, "tasks": 0}, true)
	require.NoError(t, err)
	require.Equal(t, map[string]float64{
		rid + "/thb": 80000, rid + "/tasks": 1,
		kids[0].ID.String() + "/thb": 40000, kids[1].ID.String() + "/thb": 40000,
	}, w.usage(), "zero amounts and unlimited keys make no rows")

	// The third child's own ceiling has room, the shared root's does not.
	before := w.usage()
	_, err = w.consume(kids[2], map[string]float64{"thb": 40000}, true)
	e := requireRefusal(t, err, errs.LimitExceeded, rid)
	require.Equal(t, "thb: 80000 used + 40000 requested is above 100000 on mandate "+rid, e.Message)
	require.Equal(t, before, w.usage(), "a strict refusal changes nothing")

	require.Equal(t, map[string]float64{"thb": 20000, "tasks": 9}, w.remaining(kids[2]))
	require.Equal(t, map[string]float64{"thb": 20000, "tasks": 9}, w.remaining(kids[0]))
	require.Equal(t, map[string]float64{"thb": 20000, "tasks": 9}, w.remaining(root))
}

func TestConsumeStrictRefusalNamesTheLinkAtFault(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, map[string]float64{"runs": 3, "turns": 100}, 2)
	worker := w.child(root, "a2", web, map[string]float64{"turns": 10.5})
	wid := worker.ID.String()

	_, err := w.consume(worker, map[string]float64{"turns": 11}, true)
	e := requireRefusal(t, err, errs.LimitExceeded, wid)
	require.Equal(t, "turns: 0 used + 11 requested is above 10.5 on mandate "+wid, e.Message)
	require.Empty(t, w.usage(), "the root's row counted first is rolled back too")

	_, err = w.consume(worker, map[string]float64{"turns": -1}, true)
	e = requireRefusal(t, err, errs.InvalidRequest, "")
	require.Equal(t, "amount turns=-1 must be a number of at least 0", e.Message)
}

func TestConsumeNonStrictRecordsAndReportsOverKeys(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, map[string]float64{"runs": 3, "turns": 10}, 2)
	worker := w.child(root, "a2", web, map[string]float64{"turns": 5})

	over, err := w.consume(worker, map[string]float64{"turns": 6, "runs": 1}, false)
	require.NoError(t, err)
	require.Equal(t, []string{"turns"}, over, "each key once, though only the worker's link went over")
	require.Equal(t, map[string]float64{"runs": 2, "turns": 0}, w.remaining(worker))

	over, err = w.consume(worker, map[string]float64{"turns": 7, "runs": 3}, false)
	require.NoError(t, err)
	require.Equal(t, []string{"runs", "turns"}, over, "sorted")
	require.Equal(t, map[string]float64{
		root.ID.String() + "/runs": 4, root.ID.String() + "/turns": 13, worker.ID.String() + "/turns": 13,
	}, w.usage(), "recorded past the ceilings")
	require.Equal(t, map[string]float64{"runs": 0, "turns": 0}, w.remaining(worker), "never below 0")
}

func TestRemainingOfAChainWithoutLimitsIsEmpty(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, nil, 1)
	child := w.child(root, "a2", web, map[string]float64{"turns": 4})
	require.Empty(t, w.remaining(root))
	require.Equal(t, map[string]float64{"turns": 4}, w.remaining(child), "a child may limit a key its parent does not")
}

func TestConcurrentConsumersNeverExceedACeiling(t *testing.T) {
	w := newWorld(t)
	const ceiling, spenders = 10, 24
	root := w.root("a1", web, map[string]float64{"tasks": ceiling}, 2)
	kids := []*mandate.Mandate{
		w.child(root, "a2", web, map[string]float64{"tasks": ceiling}),
		w.child(root, "a3", web, nil),
		w.child(root, "a4", web, map[string]float64{"tasks": ceiling}),
	}
	var (
		wg          sync.WaitGroup
		mu          sync.Mutex
		ok, refused int
		unexpected  []error
	)
	for i := range spenders {
		wg.Go(func() {
			_, err := w.consume(kids[i%len(kids)], map[string]float64{"tasks": 1}, true)
			mu.Lock()
			defer mu.Unlock()
			switch errs.CodeOf(err) {
			case "":
				ok++
			case errs.LimitExceeded:
				refused++
			default:
				unexpected = append(unexpected, err)
			}
		})
	}
	wg.Wait()
	require.Empty(t, unexpected)
	require.Equal(t, ceiling, ok)
	require.Equal(t, spenders-ceiling, refused)
	require.Equal(t, float64(ceiling), w.usage()[root.ID.String()+"/tasks"])
	require.Equal(t, map[string]float64{"tasks": 0}, w.remaining(kids[1]))
}
