package db_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// thing is a row of the tests' things table, as bun scans it.
type thing struct {
	ID string `bun:"id"`
	N  int    `bun:"n"`
}

// openGivingBack opens dsn like db.Open and, when t ends, requires that no
// call kept a pool connection (closing the pool would wait for it forever)
// before it closes the pool.
func openGivingBack(t *testing.T, dsn string, o db.Options) *db.DB {
	d, err := db.Open(context.Background(), dsn, o)
	require.NoError(t, err)
	t.Cleanup(func() {
		if n := d.Pool.Stat().AcquiredConns(); n > 0 {
			t.Errorf("%d pool connections were not given back", n)
			return // leak the pool rather than hang
		}
		d.Close()
	})
	return d
}

// Fetch, FetchInto and Write run hand-written statements with their
// arguments apart, on the pool and in a transaction, in both statement
// modes: Write reports the rows it changed, Fetch scans one row or many as
// bun does, FetchInto scans one row into scalars.
func TestFetchAndWriteRunHandWrittenStatements(t *testing.T) {
	for _, mode := range []string{db.Prepared, db.Unprepared} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			d := openGivingBack(t, pgtest.NewDSN(t), db.Options{Statements: mode})
			_, err := d.ExecContext(ctx, `CREATE TABLE things (id text PRIMARY KEY, n int)`)
			require.NoError(t, err)

			for i, id := range []string{"a", "b", "c"} {
				n, err := d.Write(ctx, d, `INSERT INTO things (id, n) VALUES ($1, $2)`, id, i+1)
				require.NoError(t, err)
				require.Equal(t, int64(1), n)
			}
			changed, err := d.Write(ctx, d, `UPDATE things SET n = n * $1 WHERE n >= $2`, 10, 2)
			require.NoError(t, err)
			require.Equal(t, int64(2), changed, "b and c")

			var ids []string
			require.NoError(t, d.Fetch(ctx, d, &ids, `SELECT id FROM things WHERE n > $1 ORDER BY id`, 1))
			require.Equal(t, []string{"b", "c"}, ids)
			var one thing
			require.NoError(t, d.Fetch(ctx, d, &one, `SELECT id, n FROM things WHERE id = $1`, "c"))
			require.Equal(t, thing{ID: "c", N: 30}, one)

			var id string
			var n int
			require.NoError(t, d.FetchInto(ctx, d, `SELECT id, n FROM things WHERE id = $1`, []any{"b"}, &id, &n))
			require.Equal(t, "b", id)
			require.Equal(t, 20, n)

			// In a transaction: what Write changed is what Fetch reads, and
			// the rollback undoes it.
			err = d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				changed, err := d.Write(ctx, tx, `DELETE FROM things WHERE id <> $1`, "a")
				require.NoError(t, err)
				require.Equal(t, int64(2), changed)
				var left []thing
				require.NoError(t, d.Fetch(ctx, tx, &left, `SELECT id, n FROM things ORDER BY id`))
				require.Equal(t, []thing{{ID: "a", N: 1}}, left)
				var count int
				require.NoError(t, d.FetchInto(ctx, tx, `SELECT count(*) FROM things`, nil, &count))
				require.Equal(t, 1, count)
				return sql.ErrTxDone // any error: roll back
			})
			require.ErrorIs(t, err, sql.ErrTxDone)
			var count int
			require.NoError(t, d.FetchInto(ctx, d, `SELECT count(*) FROM things`, nil, &count))
			require.Equal(t, 3, count)
			require.Zero(t, d.Pool.Stat().AcquiredConns(), "every call gave its connection back")
		})
	}
}

// FetchInto (ScanOne) says sql.ErrNoRows when there is no row, and returns
// the error of a row it cannot scan rather than leaving dest half-filled
// in silence.
func TestFetchIntoReportsNoRowAndScanErrors(t *testing.T) {
	ctx := context.Background()
	d := openGivingBack(t, pgtest.NewDSN(t), db.Options{})
	_, err := d.ExecContext(ctx, `CREATE TABLE things (id text PRIMARY KEY, n int)`)
	require.NoError(t, err)
	_, err = d.Write(ctx, d, `INSERT INTO things (id, n) VALUES ($1, $2)`, "a", 1)
	require.NoError(t, err)

	var n int
	err = d.FetchInto(ctx, d, `SELECT n FROM things WHERE id = $1`, []any{"zz"}, &n)
	require.ErrorIs(t, err, sql.ErrNoRows)

	err = d.FetchInto(ctx, d, `SELECT id FROM things WHERE id = $1`, []any{"a"}, &n)
	require.Error(t, err, "text into an int")
	err = d.FetchInto(ctx, d, `SELECT id, n FROM things WHERE id = $1`, []any{"a"}, &n)
	require.Error(t, err, "two columns into one destination")

	rows, err := d.QueryContext(ctx, `SELECT n FROM things WHERE id = 'a'`)
	require.NoError(t, err)
	require.NoError(t, db.ScanOne(rows, &n))
	require.Equal(t, 1, n)
	rows, err = d.QueryContext(ctx, `SELECT n FROM things WHERE false`)
	require.NoError(t, err)
	require.ErrorIs(t, db.ScanOne(rows, &n), sql.ErrNoRows)
	require.Zero(t, d.Pool.Stat().AcquiredConns(), "every call gave its connection back")
}
