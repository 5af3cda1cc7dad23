package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
)

// The database's refusals become the board's codes naming what was
// written; any other error keeps its cause and says which write failed.
func TestRefusalTranslatesConstraintsAndWrapsTheRest(t *testing.T) {
	d := pgtest.New(t)
	ctx := context.Background()
	_, err := d.ExecContext(ctx, `CREATE TABLE things (id text PRIMARY KEY, n int CHECK (n > 0))`)
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `INSERT INTO things VALUES ('a', 1)`)
	require.NoError(t, err)

	_, err = d.ExecContext(ctx, `INSERT INTO things VALUES ('a', 1)`)
	require.Equal(t, errs.IDTaken, errs.CodeOf(db.Refusal(err, "thing a")))
	require.Contains(t, db.Refusal(err, "thing a").Error(), "thing a is already taken")
	_, err = d.ExecContext(ctx, `INSERT INTO things VALUES ('b', 0)`)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(db.Refusal(err, "thing b")))

	cause := errors.New("connection reset")
	wrapped := db.Refusal(cause, "thing c")
	require.ErrorIs(t, wrapped, cause)
	require.Equal(t, "write thing c: connection reset", wrapped.Error())
	require.Equal(t, errs.Internal, errs.CodeOf(wrapped))
	require.NoError(t, db.Refusal(nil, "thing d"))
}
