package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// pipelineDB opens a fresh database in mode with one connection (a failed
// transaction's connection is the next one's) and a things table.
func pipelineDB(t *testing.T, mode string) (d *db.DB, count func() int) {
	ctx := context.Background()
	d = openGivingBack(t, pgtest.NewDSN(t), db.Options{Statements: mode})
	d.DB.SetMaxOpenConns(1)
	_, err := d.ExecContext(ctx, `CREATE TABLE things (id text PRIMARY KEY, n int)`)
	require.NoError(t, err)
	return d, func() (n int) {
		require.NoError(t, d.NewRaw(`SELECT count(*) FROM things`).Scan(ctx, &n))
		return n
	}
}

func insertThing(id string) db.Step {
	return db.Step{SQL: `INSERT INTO things (id, n) VALUES ($1, $2)`, Args: []any{id, 1}}
}

// countThings is a step that reads the number of things into n.
func countThings(n *int) db.Step {
	return db.Step{SQL: `SELECT count(*) FROM things WHERE n >= $1`, Args: []any{0}, Rows: db.OneRow(n)}
}

// Pipeline runs its steps in order inside the transaction, each one's Rows
// reading its own statement's rows, the first step's too; with no steps it
// sends nothing.
func TestPipelineRunsItsStepsInOrderInsideTheTransaction(t *testing.T) {
	for _, mode := range []string{db.Prepared, db.Unprepared} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			d, count := pipelineDB(t, mode)
			tx, err := d.Begin(ctx)
			require.NoError(t, err)

			before := d.RoundTrips()
			require.NoError(t, tx.Pipeline(ctx))
			require.Equal(t, before, d.RoundTrips(), "no steps, no round trip")

			first, last := -1, -1
			require.NoError(t, tx.Pipeline(ctx, countThings(&first), insertThing("a"), insertThing("b"), countThings(&last)))
			require.Equal(t, 0, first, "the first step ran before the inserts, and its rows were read")
			require.Equal(t, 2, last)
			require.NoError(t, tx.Commit(ctx))
			require.Equal(t, 2, count())
		})
	}
}

// An error from a step's Rows fails the call that carried the step, naming
// the step, and Begin's transaction is rolled back: nothing of it stays.
func TestAStepsRowsErrorFailsItsTransaction(t *testing.T) {
	ctx := context.Background()
	d, count := pipelineDB(t, db.Prepared)
	boom := errors.New("boom")
	refuse := db.Step{SQL: `SELECT $1::text`, Args: []any{"x"}, Rows: func(*db.Tx, pgx.Rows) error { return boom }}

	_, err := d.Begin(ctx, insertThing("a"), refuse)
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "(in SELECT $1::text)")
	require.Equal(t, 0, count())

	tx, err := d.Begin(ctx, insertThing("b"))
	require.NoError(t, err)
	require.ErrorIs(t, tx.Pipeline(ctx, refuse), boom)
	tx.Rollback(ctx)
	require.Equal(t, 0, count())
}

// A step whose statement fails fails the call with the server's error,
// which names the statement: its first line, trimmed, cut to 80
// characters. So it does whether the statement returns rows or not (pgx
// reports a statement without rows before any result of it), whether the
// error comes after rows the step read, and for a COMMIT.
func TestAFailedStepsErrorNamesItsStatement(t *testing.T) {
	ctx := context.Background()
	d, count := pipelineDB(t, db.Unprepared)
	const again = `INSERT INTO things (id, n) VALUES ($1, 2) RETURNING id -- `
	long := again + strings.Repeat("a", 80-len(again))
	for _, c := range []struct{ sql, named string }{
		{`INSERT INTO things (id, n) VALUES ($1, 2) RETURNING id`, `INSERT INTO things (id, n) VALUES ($1, 2) RETURNING id`},
		{"\n\t\tINSERT INTO things (id, n) VALUES ($1, 2)\n\t\tRETURNING id\n", `INSERT INTO things (id, n) VALUES ($1, 2)`},
		{long, long},
		{long + "b", long + "…"},
	} {
		_, err := d.Begin(ctx, insertThing("a"), db.Step{SQL: c.sql, Args: []any{"a"}})
		require.Equal(t, db.UniqueViolation, db.PgCode(err), "%q: %v", c.sql, err)
		require.True(t, strings.HasSuffix(err.Error(), " (in "+c.named+")"), "%q: %v", c.sql, err)
		require.Equal(t, 0, count())
	}

	// Without rows: the second insert fails, not the first or a later one.
	_, err := d.Begin(ctx, insertThing("a"), insertThing("a"), insertThing("z"))
	require.Equal(t, db.UniqueViolation, db.PgCode(err), "%v", err)
	require.True(t, strings.HasSuffix(err.Error(), " (in "+insertThing("a").SQL+")"), "%v", err)
	tx, err := d.Begin(ctx, insertThing("a"))
	require.NoError(t, err)
	err = tx.Commit(ctx, db.Step{SQL: `UPDATE things SET n = n / 0 WHERE id = $1`, Args: []any{"a"}})
	require.Equal(t, "22012", db.PgCode(err), "%v", err)
	require.True(t, strings.HasSuffix(err.Error(), " (in UPDATE things SET n = n / 0 WHERE id = $1)"), "%v", err)
	require.Equal(t, 0, count())

	// The error comes after the first row, which OneRow read.
	n := 0
	const late = `SELECT 10/(2-g) FROM generate_series(1, 3) g`
	_, err = d.Begin(ctx, db.Step{SQL: late, Rows: db.OneRow(&n)}, insertThing("a"))
	require.Equal(t, 10, n)
	require.Equal(t, "22012", db.PgCode(err), "%v", err)
	require.True(t, strings.HasSuffix(err.Error(), " (in "+late+")"), "%v", err)
	require.Equal(t, 0, count())
}

// A COMMIT the server refuses (a deferred constraint, checked only then)
// fails Commit with the server's error, with or without last steps, and
// nothing commits.
func TestACommitTheServerRefusesCommitsNothing(t *testing.T) {
	ctx := context.Background()
	d, count := pipelineDB(t, db.Prepared)
	_, err := d.ExecContext(ctx, `ALTER TABLE things DROP CONSTRAINT things_pkey,
		ADD CONSTRAINT things_once UNIQUE (id) DEFERRABLE INITIALLY DEFERRED`)
	require.NoError(t, err)

	tx, err := d.Begin(ctx, insertThing("a"), insertThing("a"))
	require.NoError(t, err, "the duplicate is accepted until COMMIT")
	err = tx.Commit(ctx)
	require.Equal(t, db.UniqueViolation, db.PgCode(err), "%v", err)
	require.ErrorContains(t, err, "(in commit)")
	require.Equal(t, 0, count())

	tx, err = d.Begin(ctx, insertThing("b"))
	require.NoError(t, err)
	err = tx.Commit(ctx, insertThing("c"), insertThing("b"))
	require.Equal(t, db.UniqueViolation, db.PgCode(err), "%v", err)
	require.Equal(t, 0, count())
}

// A Commit after a round trip of the transaction failed reports that
// nothing committed (the server answers COMMIT with ROLLBACK, no error of
// its own), with last steps or without; the transaction's earlier work is
// gone.
func TestACommitAfterAFailedStatementReportsTheRollback(t *testing.T) {
	for _, last := range [][]db.Step{nil, {insertThing("c")}} {
		ctx := context.Background()
		d, count := pipelineDB(t, db.Prepared)
		tx, err := d.Begin(ctx, insertThing("a"))
		require.NoError(t, err)
		require.Equal(t, db.UniqueViolation, db.PgCode(tx.Pipeline(ctx, insertThing("a"))))
		err = tx.Commit(ctx, last...)
		require.Error(t, err, "a COMMIT the server rolled back")
		if last == nil {
			require.ErrorIs(t, err, pgx.ErrTxCommitRollback)
			require.ErrorContains(t, err, "nothing committed")
		} else {
			require.Equal(t, "25P02", db.PgCode(err), "the last step is refused in the aborted transaction: %v", err)
		}
		require.Equal(t, 0, count())
	}
}

// A Rows func of Commit's last steps runs after the server committed: its
// error says so (ErrReadAfterCommit), and the change is there. Begin's and
// Pipeline's Rows errors are not marked: their transaction has not committed.
func TestARowsErrorAfterCommitSaysTheChangeCommitted(t *testing.T) {
	ctx := context.Background()
	d, count := pipelineDB(t, db.Unprepared)
	boom := errors.New("boom")
	refuse := db.Step{SQL: `SELECT $1::text`, Args: []any{"x"}, Rows: func(*db.Tx, pgx.Rows) error { return boom }}

	tx, err := d.Begin(ctx, insertThing("a"))
	require.NoError(t, err)
	err = tx.Commit(ctx, insertThing("b"), refuse)
	require.ErrorIs(t, err, boom)
	require.ErrorIs(t, err, db.ErrReadAfterCommit)
	require.Equal(t, 2, count(), "both inserts committed")

	tx, err = d.Begin(ctx, insertThing("c"))
	require.NoError(t, err)
	err = tx.Pipeline(ctx, refuse)
	require.ErrorIs(t, err, boom)
	require.NotErrorIs(t, err, db.ErrReadAfterCommit)
	tx.Rollback(ctx)
	require.Equal(t, 2, count())
}

// In the prepared mode a step's statement stays prepared on its connection
// (parsed and planned once); in the unprepared mode nothing outlives the
// round trip.
func TestOnlyThePreparedModeKeepsStatementsOnTheConnection(t *testing.T) {
	for mode, kept := range map[string]int{db.Prepared: 1, db.Unprepared: 0} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			d, _ := pipelineDB(t, mode)
			const sum = `SELECT $1::int + 1`
			n := 0
			tx, err := d.Begin(ctx, db.Step{SQL: sum, Args: []any{41}, Rows: db.OneRow(&n)})
			require.NoError(t, err)
			defer tx.Rollback(ctx)
			require.Equal(t, 42, n)
			var found int
			require.NoError(t, tx.NewRaw(`SELECT count(*) FROM pg_prepared_statements WHERE statement = ?`, sum).
				Scan(ctx, &found))
			require.Equal(t, kept, found)
		})
	}
}

// When the rollback to the savepoint fails too (here fn released the
// savepoint itself), Savepoint returns fn's error and the rollback's, so
// the caller does not take its transaction for restored.
func TestSavepointReportsARollbackThatFailed(t *testing.T) {
	ctx := context.Background()
	d, _ := pipelineDB(t, db.Prepared)
	tx, err := d.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	boom := errors.New("boom")
	err = db.Savepoint(ctx, tx, func(ctx context.Context) error {
		_, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT pact_savepoint")
		require.NoError(t, err)
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, "3B001", db.PgCode(err), "invalid_savepoint_specification: %v", err)
}
