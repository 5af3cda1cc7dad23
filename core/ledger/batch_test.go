package ledger

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/pgtest"
)

// A chain longer than a batch is read in several queries, each going on
// after the last id read: whatever the batch, every entry is checked once,
// in order, and the first broken one is found.
func TestVerifyReadsAChainInBatches(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	_, err := d.ExecContext(ctx, `INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('web', 'default', 'Web', 'ana'), ('api', 'default', 'Api', 'ana')`)
	require.NoError(t, err)
	l := New(nil)
	var ids []int64
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for i := range 25 {
			// Another chain's entries in between: ids in a chain have gaps.
			if _, err := l.Append(ctx, tx, Entry{ProjectID: "api", Actor: "system", Action: "y", Payload: i}); err != nil {
				return err
			}
			a, err := l.Append(ctx, tx, Entry{ProjectID: "web", Actor: "system", Action: "x", Payload: i})
			if err != nil {
				return err
			}
			ids = append(ids, a.ID)
		}
		return nil
	}))
	_, err = l.Integrate(ctx, d, true)
	require.NoError(t, err)
	verify := func(size int) Verdict {
		t.Helper()
		var v Verdict
		require.NoError(t, pgx.BeginTxFunc(ctx, d.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
			func(tx pgx.Tx) (err error) {
				seen := 0
				v, err = verifyChain(ctx, tx, "web", size, func(k int) { seen += k })
				if v.OK {
					require.Equal(t, 25, seen)
				}
				return err
			}))
		return v
	}
	for _, size := range []int{1, 5, 7, 25, 26, batch} {
		v := verify(size)
		require.True(t, v.OK, "batch %d: %s", size, v.Reason)
		require.EqualValues(t, 25, v.Checked, "batch %d", size)
	}
	_, err = d.ExecContext(ctx, `ALTER TABLE entries DISABLE TRIGGER USER; UPDATE entries SET action = 'forged' WHERE id = ?`, ids[15])
	require.NoError(t, err)
	for _, size := range []int{1, 5, 7, 15, 16, batch} {
		v := verify(size)
		require.False(t, v.OK, "batch %d", size)
		require.Equal(t, ids[15], *v.BrokenAt, "batch %d", size)
		require.EqualValues(t, 15, v.Checked, "batch %d", size)
	}
}
