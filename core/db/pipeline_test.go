package db_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// A pipelined transaction is two round trips, BEGIN with the first
// statements and COMMIT with the last, in both statement modes; what runs
// between them on the same handle belongs to the same transaction; and a
// failing statement commits nothing and leaves the connection clean.
func TestPipelinedTransaction(t *testing.T) {
	for _, mode := range []string{db.Prepared, db.Unprepared} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			d, err := db.Open(ctx, pgtest.NewDSN(t), db.Options{Statements: mode})
			require.NoError(t, err)
			t.Cleanup(d.Close)
			d.DB.SetMaxOpenConns(1) // the failed transaction's connection is the next one's
			_, err = d.ExecContext(ctx, `CREATE TABLE things (id text PRIMARY KEY, n int CHECK (n > 0))`)
			require.NoError(t, err)

			count := func() (n int) {
				require.NoError(t, d.NewRaw(`SELECT count(*) FROM things`).Scan(ctx, &n))
				return n
			}
			insert := func(id string, n int) db.Step {
				return db.Step{SQL: `INSERT INTO things (id, n) VALUES ($1, $2)`, Args: []any{id, n}}
			}
			var seen []string
			list := db.Step{SQL: `SELECT id FROM things WHERE n >= $1 ORDER BY id`, Args: []any{1},
				Rows: func(tx *db.Tx, rows pgx.Rows) error {
					ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
					seen = ids
					tx.Keep("ids", ids)
					return err
				}}

			for round := range 2 { // the second round runs on prepared statements
				_, err = d.ExecContext(ctx, `DELETE FROM things`)
				require.NoError(t, err)
				before := d.RoundTrips()
				var trips []string
				stop := d.Watch(func(sql string) { trips = append(trips, sql) })
				tx, err := d.Begin(ctx, insert("a", 1), list)
				require.NoError(t, err)
				require.Equal(t, []string{"a"}, seen, "a step reads what an earlier step of its batch wrote")
				kept, ok := tx.Take("ids")
				require.True(t, ok)
				require.Equal(t, []string{"a"}, kept)
				_, ok = tx.Take("ids")
				require.False(t, ok, "what a step keeps is taken once")
				_, err = d.Write(ctx, tx, `INSERT INTO things (id, n) VALUES ($1, $2)`, "b", 2)
				require.NoError(t, err)
				require.NoError(t, tx.Commit(ctx, insert("c", 3), list))
				stop()
				if round == 1 {
					require.Equal(t, int64(3), d.RoundTrips()-before, "BEGIN+2, one write, 2+COMMIT: %q", trips)
				}
				require.Equal(t, []string{"a", "b", "c"}, seen)
				require.Equal(t, 3, count())
			}

			// A statement the server refuses in the COMMIT's batch: nothing
			// of the transaction stays, and the connection is clean.
			tx, err := d.Begin(ctx, insert("d", 4))
			require.NoError(t, err)
			err = tx.Commit(ctx, insert("e", 0))
			require.Error(t, err)
			require.Equal(t, "23514", db.PgCode(err), "the CHECK's refusal comes back as itself: %v", err)
			require.Equal(t, 3, count(), "d was rolled back with e")

			// In BEGIN's batch, likewise.
			_, err = d.Begin(ctx, insert("f", 6), insert("a", 1))
			require.Equal(t, "23505", db.PgCode(err))
			require.Equal(t, 3, count())

			// Rollback after work on the handle undoes it.
			tx, err = d.Begin(ctx)
			require.NoError(t, err)
			_, err = d.Write(ctx, tx, `INSERT INTO things (id, n) VALUES ($1, $2)`, "g", 7)
			require.NoError(t, err)
			tx.Rollback(ctx)
			require.Equal(t, 3, count())
			require.ErrorIs(t, tx.Commit(ctx), sql.ErrTxDone)

			// Once: one round trip that commits every step, or none of them.
			before := d.RoundTrips()
			require.NoError(t, d.Once(ctx, insert("h", 8), list))
			require.Equal(t, int64(1), d.RoundTrips()-before, "BEGIN, the steps and COMMIT in one batch")
			require.Contains(t, seen, "h", "a step of Once reads what an earlier one wrote")
			require.Equal(t, 4, count())
			err = d.Once(ctx, insert("i", 9), insert("j", 0))
			require.Equal(t, "23514", db.PgCode(err), "the refusal comes back as itself: %v", err)
			require.Equal(t, 4, count(), "i was rolled back with j")

			// Nesting is refused, not sent.
			tx, err = d.Begin(ctx)
			require.NoError(t, err)
			require.Error(t, tx.RunInTx(ctx, nil, nil))
			tx.Rollback(ctx)
		})
	}
}

// A savepoint keeps what its function did, or undoes it (an error, or a
// statement the server refused) and leaves the transaction usable, in a
// pipelined transaction and in bun's.
func TestSavepointUndoesOnlyItsOwnWork(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	_, err := d.ExecContext(ctx, `CREATE TABLE things (id text PRIMARY KEY)`)
	require.NoError(t, err)
	work := func(tx bun.IDB, prefix string) {
		insert := func(id string) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO things VALUES (?)`, prefix+id)
			return err
		}
		require.NoError(t, insert("kept"))
		require.NoError(t, db.Savepoint(ctx, tx, func(context.Context) error { return insert("inner") }))
		boom := errors.New("boom")
		require.ErrorIs(t, db.Savepoint(ctx, tx, func(context.Context) error {
			require.NoError(t, insert("undone"))
			return boom
		}), boom)
		require.Error(t, db.Savepoint(ctx, tx, func(context.Context) error { return insert("kept") }), "a duplicate")
		require.NoError(t, insert("after"), "the transaction is still usable")
	}
	tx, err := d.Begin(ctx)
	require.NoError(t, err)
	work(tx, "p-")
	require.NoError(t, tx.Commit(ctx))
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error { work(tx, "b-"); return nil }))

	var ids []string
	require.NoError(t, d.NewRaw(`SELECT id FROM things ORDER BY id`).Scan(ctx, &ids))
	require.Equal(t, []string{"b-after", "b-inner", "b-kept", "p-after", "p-inner", "p-kept"}, ids)
}
