package mandate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func (w *world) revoke(id uuid.UUID) (*mandate.Revocation, error) {
	var ev *mandate.Revocation
	err := w.tx(func(tx bun.IDB) (err error) {
		ev, err = w.svc.RevokeSubtree(w.ctx, tx, id)
		return err
	})
	return ev, err
}

func TestRevokeSubtreeKillsEverythingBelow(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2", "a3", "a4")
	root, middle := links[0], links[1]
	sibling := w.child(root, "a5", web, nil)
	branch := w.child(middle, "a6", web, nil)

	ev, err := w.revoke(middle.ID)
	require.NoError(t, err)
	require.Equal(t, middle.ID, ev.Revoked)
	require.Equal(t, middle.ID, ev.Subtree[0], "itself first")
	require.ElementsMatch(t, []uuid.UUID{middle.ID, links[2].ID, branch.ID, links[3].ID}, ev.Subtree)
	require.Equal(t, links[3].ID, ev.Subtree[3], "nearest first")

	for _, m := range []*mandate.Mandate{middle, links[2], links[3], branch} {
		_, err := w.verify(m.ID.String(), m.Holder)
		requireRefusal(t, err, errs.MandateRevoked, middle.ID.String())
	}
	w.chain(root)
	w.chain(sibling)

	// Only the revoked mandate is marked, at the service's clock.
	var marked int
	require.NoError(t, w.d.QueryRowContext(w.ctx, "SELECT count(*) FROM mandates WHERE revoked_at IS NOT NULL").Scan(&marked))
	require.Equal(t, 1, marked)
	got, err := w.svc.Get(w.ctx, w.d, middle.ID.String())
	require.NoError(t, err)
	require.Equal(t, t0, *got.RevokedAt)

	// Revoking again keeps the first time and reports the same subtree.
	w.now = t0.Add(time.Hour)
	again, err := w.revoke(middle.ID)
	require.NoError(t, err)
	require.Equal(t, ev, again)
	got, err = w.svc.Get(w.ctx, w.d, middle.ID.String())
	require.NoError(t, err)
	require.Equal(t, t0, *got.RevokedAt)
}

func TestRevokeSubtreeOfAnUnknownMandate(t *testing.T) {
	w := newWorld(t)
	id := uuid.New()
	_, err := w.revoke(id)
	e := requireRefusal(t, err, errs.NotFound, "")
	require.Equal(t, "mandate "+id.String()+" does not exist", e.Message)
}

func TestRevokeHooksRunInOrderInsideTheTransaction(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2")
	var calls []string
	w.svc.OnRevoke(func(ctx context.Context, tx bun.IDB, ev mandate.RevokeEvent) (mandate.RevokeReport, error) {
		// The hook sees the revocation its own transaction made.
		var revoked bool
		if err := tx.QueryRowContext(ctx, "SELECT revoked_at IS NOT NULL FROM mandates WHERE id = ?", ev.Revoked.String()).Scan(&revoked); err != nil {
			return mandate.RevokeReport{}, err
		}
		require.True(t, revoked)
		require.Equal(t, []uuid.UUID{links[0].ID, links[1].ID}, ev.Subtree)
		calls = append(calls, "first")
		return mandate.RevokeReport{TasksStopped: []string{"t1", "t2"}}, nil
	})
	w.svc.OnRevoke(func(context.Context, bun.IDB, mandate.RevokeEvent) (mandate.RevokeReport, error) {
		calls = append(calls, "second")
		return mandate.RevokeReport{TasksStopped: []string{"t2", "t3"}}, nil
	})
	ev, err := w.revoke(links[0].ID)
	require.NoError(t, err)
	require.Equal(t, []string{"first", "second"}, calls)
	require.Equal(t, []string{"t1", "t2", "t3"}, ev.TasksStopped, "the hooks' reports come back merged, each task once")
}

func TestARevokeHookErrorRollsEverythingBack(t *testing.T) {
	w := newWorld(t)
	links := w.line(nil, "a2")
	w.svc.OnRevoke(func(ctx context.Context, tx bun.IDB, ev mandate.RevokeEvent) (mandate.RevokeReport, error) {
		_, err := tx.ExecContext(ctx, "INSERT INTO limit_usage (mandate_id, limit_key) VALUES (?, 'hook')", ev.Revoked.String())
		return mandate.RevokeReport{}, err
	})
	w.svc.OnRevoke(func(context.Context, bun.IDB, mandate.RevokeEvent) (mandate.RevokeReport, error) {
		return mandate.RevokeReport{}, errors.New("the task store is down")
	})
	_, err := w.revoke(links[0].ID)
	require.Equal(t, errs.Internal, errs.CodeOf(err))
	w.chain(links[1])
	require.Empty(t, w.usage(), "the first hook's write is rolled back with the revocation")

	// A refusal from a hook comes back as it is.
	w2 := newWorld(t)
	root := w2.root("a1", web, nil, 1)
	w2.svc.OnRevoke(func(context.Context, bun.IDB, mandate.RevokeEvent) (mandate.RevokeReport, error) {
		return mandate.RevokeReport{}, errs.E(errs.Forbidden, "not now")
	})
	_, err = w2.revoke(root.ID)
	requireRefusal(t, err, errs.Forbidden, "")
	w2.chain(root)
}

// Lineage reads a chain root first, unverified, and says whether any link is
// revoked; stopping an agent revokes every live mandate it holds, and
// disabling a person every live root they issued, each with its subtree.
func TestLineageAndRevokingAllThatIsHeldOrIssued(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, nil, 2)
	child := w.child(root, "a2", web, nil)
	other := w.root("a3", web, nil, 1)
	lineage := func(id string) (c mandate.Chain, err error) {
		err = w.tx(func(tx bun.IDB) (err error) { c, err = w.svc.Lineage(w.ctx, tx, id); return err })
		return c, err
	}
	c, err := lineage(child.ID.String())
	require.NoError(t, err)
	require.Len(t, c, 2)
	require.Equal(t, root.ID, c[0].ID)
	require.False(t, c.Revoked())
	for _, missing := range []string{uuid.NewString(), "not-an-id"} {
		_, err = lineage(missing)
		require.Equal(t, errs.NotFound, errs.CodeOf(err), missing)
	}

	var held, issued []*mandate.Revocation
	require.NoError(t, w.tx(func(tx bun.IDB) (err error) { held, err = w.svc.RevokeHeldBy(w.ctx, tx, "a2"); return err }))
	require.Len(t, held, 1)
	require.Equal(t, child.ID, held[0].Revoked)
	c, err = lineage(child.ID.String())
	require.NoError(t, err)
	require.True(t, c.Revoked())
	_, err = w.verify(child.ID.String(), "a2")
	requireRefusal(t, err, errs.MandateRevoked, child.ID.String())

	require.NoError(t, w.tx(func(tx bun.IDB) (err error) { issued, err = w.svc.RevokeIssuedBy(w.ctx, tx, "boss"); return err }))
	require.Len(t, issued, 2)
	require.ElementsMatch(t, []uuid.UUID{root.ID, other.ID}, []uuid.UUID{issued[0].Revoked, issued[1].Revoked})
	require.Equal(t, []uuid.UUID{root.ID, child.ID}, issued[0].Subtree)
	_, err = w.verify(other.ID.String(), "a3")
	requireRefusal(t, err, errs.MandateRevoked, other.ID.String())
}
