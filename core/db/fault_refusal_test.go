package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// Fault leaves the database's refusals of a call alone (a constraint, a
// bad statement, a missing table): the call was wrong, the database did not
// fail, so retrying would not help.
func TestFaultLeavesTheDatabasesRefusalsOfACall(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	_, err := d.ExecContext(ctx, `CREATE TABLE things (id text PRIMARY KEY, n int CHECK (n > 0))`)
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `INSERT INTO things VALUES ('a', 1)`)
	require.NoError(t, err)

	for code, statement := range map[string]string{
		db.UniqueViolation: `INSERT INTO things VALUES ('a', 1)`,
		db.CheckViolation:  `INSERT INTO things VALUES ('b', 0)`,
		"22012":            `SELECT 1 / (n - 1) FROM things`, // division_by_zero
		"42601":            `SELEKT 1`,                       // syntax_error
		"42P01":            `SELECT * FROM no_such_table`,    // undefined_table
	} {
		_, err := d.ExecContext(ctx, statement)
		require.Equal(t, code, db.PgCode(err), "%s: %v", statement, err)
		require.Same(t, err, db.Fault(err), "%s: %v", statement, err)
	}
}
