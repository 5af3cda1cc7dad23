package ledger_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
)

// A pipelined append the database refuses returns the database's error,
// not a missing receipt: here ledger_append finds no organization for the
// entry (foreign_key_violation), and nothing is logged. In the unprepared
// mode the statement's row description comes before the error, so the
// error reaches AppendStep's Rows, which must pass it on.
func TestAPipelinedAppendTheDatabaseRefusesReturnsItsError(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{db.Prepared, db.Unprepared} {
		t.Run(mode, func(t *testing.T) {
			d, err := db.Open(ctx, pgtest.NewDSN(t), db.Options{Statements: mode})
			require.NoError(t, err)
			t.Cleanup(d.Close)
			err = ledger.New(nil).RecordPipelined(ctx, d, ledger.Entry{OrgID: "no-such-org", Actor: "system", Action: "x"}, nil,
				func(context.Context, *db.Tx, *ledger.Entry) error { return nil })
			require.Equal(t, db.ForeignKeyViolation, db.PgCode(err), "%v", err)
			require.ErrorContains(t, err, "no organization for the entry")
			var n int
			require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM entries`).Scan(&n))
			require.Zero(t, n)
		})
	}
}
