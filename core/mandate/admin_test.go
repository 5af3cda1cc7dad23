package mandate_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
)

// canceled is a context already canceled: the query it carries fails before
// it reaches the database, the simplest failing path of a read.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// liveRoot issues a root from boss to holder that expires a day after the
// real now: what the database's own clock (now() in SQL) sees as live, where
// root's expiry is fixed by the world's clock. limits is at most one map.
func (w *world) liveRoot(holder string, scope []string, delegations int, limits ...map[string]float64) *mandate.Mandate {
	w.tb.Helper()
	in := mandate.RootInput{Issuer: "boss", Holder: holder, Scope: scope, Delegations: delegations,
		ExpiresAt: time.Now().Add(24 * time.Hour)}
	if len(limits) > 0 {
		in.Limits = limits[0]
	}
	var m *mandate.Mandate
	require.NoError(w.tb, w.tx(func(tx bun.IDB) (err error) {
		m, err = w.svc.IssueRoot(w.ctx, tx, in)
		return err
	}))
	return m
}

func TestLiveSubtreeListsLiveLinksByDepthAndStopsAtARevokedOne(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3")
	side := w.child(links[0], "a4", web, nil)
	root, mid, leaf := links[0].ID.String(), links[1].ID.String(), links[2].ID.String()

	subtree := func(id string) ([]mandate.SubtreeLink, error) {
		var out []mandate.SubtreeLink
		err := w.tx(func(tx bun.IDB) (err error) {
			out, err = w.svc.LiveSubtree(w.ctx, tx, id)
			return err
		})
		return out, err
	}
	got, err := subtree(root)
	require.NoError(t, err)
	// Depth 1 holds two links, ordered by id.
	first, second := mandate.SubtreeLink{ID: mid, Holder: "a2", Below: 1}, mandate.SubtreeLink{ID: side.ID.String(), Holder: "a4", Below: 1}
	if second.ID < first.ID {
		first, second = second, first
	}
	require.Equal(t, []mandate.SubtreeLink{
		{ID: root, Holder: "a1", Below: 0}, first, second, {ID: leaf, Holder: "a3", Below: 2},
	}, got)

	got, err = subtree(leaf)
	require.NoError(t, err)
	require.Equal(t, []mandate.SubtreeLink{{ID: leaf, Holder: "a3", Below: 0}}, got)

	// A revoked link takes itself and everything under it out.
	w.exec("UPDATE mandates SET revoked_at = now() WHERE id = ?", mid)
	got, err = subtree(root)
	require.NoError(t, err)
	require.Equal(t, []mandate.SubtreeLink{{ID: root, Holder: "a1", Below: 0}, {ID: side.ID.String(), Holder: "a4", Below: 1}}, got)
	got, err = subtree(mid)
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestLiveSubtreeReturnsTheDatabaseErrorNamingTheMandate(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, nil, 1).ID.String()
	err := w.tx(func(tx bun.IDB) error {
		out, err := w.svc.LiveSubtree(canceled(), tx, root)
		require.Nil(t, out)
		return err
	})
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "live subtree of mandate "+root+": context canceled")
}

func TestListHeldInListsTheOrgsLiveMandatesOrAllOfThem(t *testing.T) {
	w := newWorld(t)
	top := w.liveRoot("a1", web, mandate.MaxDepth, map[string]float64{"runs": 5})
	links := []*mandate.Mandate{top, w.child(top, "a2", web, nil)}
	gone := w.liveRoot("a3", web, 0)
	w.exec("UPDATE mandates SET revoked_at = now() WHERE id = ?", gone.ID.String())
	w.liveRoot("r1", []string{"task.read@project:rival"}, 0) // another org's: never listed
	w.exec("INSERT INTO limit_usage (mandate_id, limit_key, used) VALUES (?, 'runs', 2)", links[0].ID.String())

	list := func(org string, all bool) []mandate.Listed {
		var out []mandate.Listed
		require.NoError(t, w.tx(func(tx bun.IDB) (err error) {
			out, err = w.svc.ListHeldIn(w.ctx, tx, org, all)
			return err
		}))
		return out
	}
	ids := func(l []mandate.Listed) []string {
		var out []string
		for _, m := range l {
			out = append(out, m.ID)
		}
		return out
	}

	live := list("default", false)
	require.Equal(t, []string{links[0].ID.String(), links[1].ID.String()}, ids(live))
	root, child := live[0], live[1]
	require.Nil(t, root.ParentID)
	require.Equal(t, []any{"human", "boss", "a1", 0, mandate.MaxDepth, "pact"},
		[]any{root.IssuerKind, root.Issuer, root.Holder, root.Depth, root.DelegationsLeft, root.Format})
	require.Equal(t, web, root.Scope)
	require.JSONEq(t, `{"runs": 5}`, string(root.Limits))
	require.JSONEq(t, `{"runs": 2}`, string(root.Usage))
	require.Equal(t, links[0].ID.String(), *child.ParentID)
	require.Equal(t, []any{"agent", "a1", "a2", 1, mandate.MaxDepth - 1},
		[]any{child.IssuerKind, child.Issuer, child.Holder, child.Depth, child.DelegationsLeft})
	require.JSONEq(t, `{}`, string(child.Usage))
	require.Nil(t, child.RevokedAt)

	// all adds the revoked root, after the one created before it at depth 0.
	every := list("default", true)
	require.Equal(t, []string{links[0].ID.String(), gone.ID.String(), links[1].ID.String()}, ids(every))
	require.NotNil(t, every[1].RevokedAt)

	require.Len(t, list("rival", false), 1)
	require.Empty(t, list("nobody", true))
}

func TestListHeldInReturnsTheDatabaseErrorNamingTheOrg(t *testing.T) {
	w := newWorld(t)
	w.root("a1", web, nil, 0)
	err := w.tx(func(tx bun.IDB) error {
		out, err := w.svc.ListHeldIn(canceled(), tx, "default", true)
		require.Nil(t, out)
		return err
	})
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "mandates held in default: context canceled")
}

// Lock holds the row until the transaction ends: another transaction
// cannot take it meanwhile.
func TestLockHoldsTheMandatesRowUntilTheTransactionEnds(t *testing.T) {
	w := newWorld(t)
	id := w.root("a1", web, nil, 0).ID.String()
	err := w.tx(func(tx bun.IDB) error {
		require.NoError(t, w.svc.Lock(w.ctx, tx, id))
		_, err := w.d.ExecContext(w.ctx, "SELECT 1 FROM mandates WHERE id = ? FOR UPDATE NOWAIT", id)
		require.ErrorContains(t, err, "55P03", "the row is locked by the first transaction")
		return nil
	})
	require.NoError(t, err)
	w.exec("SELECT 1 FROM mandates WHERE id = ? FOR UPDATE NOWAIT", id)

	// Locking no row at all is not an error.
	require.NoError(t, w.tx(func(tx bun.IDB) error {
		return w.svc.Lock(w.ctx, tx, "00000000-0000-4000-8000-000000000000")
	}))
}

func TestLockReturnsTheDatabaseErrorNamingTheMandate(t *testing.T) {
	w := newWorld(t)
	id := w.root("a1", web, nil, 0).ID.String()
	err := w.tx(func(tx bun.IDB) error { return w.svc.Lock(canceled(), tx, id) })
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "lock mandate "+id+": context canceled")
}
