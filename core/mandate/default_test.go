package mandate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

func (w *world) defaultOf(agent string) (string, error) {
	var id string
	err := w.tx(func(tx bun.IDB) (err error) {
		id, err = w.svc.Default(w.ctx, tx, agent)
		return err
	})
	return id, err
}

func TestTheDefaultMandateIsTheLiveRootElseTheShallowestOldestLiveOne(t *testing.T) {
	w := newWorld(t)
	_, err := w.defaultOf("a1")
	require.Equal(t, errs.MandateExpired, errs.CodeOf(err), "an agent with no mandate has no default")

	older := w.root("a1", web, nil, 2)
	root := w.root("a1", web, nil, 2)
	// core/identity names an agent's root when it registers the agent; this
	// world's agents are rows of their own, so the test names it the same way.
	w.exec(`UPDATE agents SET root_mandate_id = ? WHERE id = 'a1'`, root.ID.String())
	got, err := w.defaultOf("a1")
	require.NoError(t, err)
	require.Equal(t, root.ID.String(), got, "the root comes first even when another root is older")

	w.exec(`UPDATE mandates SET revoked_at = now() WHERE id = ?`, root.ID.String())
	got, err = w.defaultOf("a1")
	require.NoError(t, err)
	require.Equal(t, older.ID.String(), got, "a revoked root gives way to the oldest live one")

	child := w.child(older, "a2", web, nil)
	got, err = w.defaultOf("a2")
	require.NoError(t, err)
	require.Equal(t, child.ID.String(), got)
	shallow := w.root("a2", web, nil, 1)
	got, err = w.defaultOf("a2")
	require.NoError(t, err)
	require.Equal(t, shallow.ID.String(), got, "a shallower mandate comes before an older, deeper one")

	w.now = t0.Add(31 * 24 * time.Hour)
	_, err = w.defaultOf("a1")
	require.Equal(t, errs.MandateExpired, errs.CodeOf(err), "expiry is judged by the service's clock")
}
