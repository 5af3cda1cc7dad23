package mandate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// A chain read ahead in the round trip that opens a pipelined transaction
// verifies as the same chain read by Verify itself, and refuses as it
// would: the rows are the same, and Verify still decides.
func TestAChainReadAheadVerifiesAsARead(t *testing.T) {
	w := newWorld(t)
	links := w.line(map[string]float64{"thb": 10}, "a2", "a3")
	leaf := links[2].ID.String()
	want := w.chain(links[2])

	verifyAhead := func(id, holder string) (int64, error) {
		step, ok := w.svc.ReadAhead(id, holder)
		require.True(t, ok)
		tx, err := w.d.Begin(w.ctx, step)
		require.NoError(t, err)
		defer tx.Rollback(w.ctx)
		before := w.d.RoundTrips()
		got, err := w.svc.Verify(w.ctx, tx, id, holder)
		if err == nil {
			require.Equal(t, want, got)
		}
		trips := w.d.RoundTrips() - before
		_, again := w.svc.Verify(w.ctx, tx, id, holder)
		require.Equal(t, err, again, "a second read in the transaction reads the rows itself, and agrees")
		return trips, err
	}
	trips, err := verifyAhead(leaf, "a3")
	require.NoError(t, err)
	require.Zero(t, trips, "Verify took the rows read ahead")

	_, err = verifyAhead(leaf, "a2")
	requireRefusal(t, err, errs.ChainBroken, leaf)

	w.exec("UPDATE mandates SET revoked_at = now() WHERE id = ?", links[1].ID.String())
	_, err = verifyAhead(leaf, "a3")
	requireRefusal(t, err, errs.MandateRevoked, links[1].ID.String())

	_, ok := w.svc.ReadAhead("not-a-mandate", "a3")
	require.False(t, ok)
}
