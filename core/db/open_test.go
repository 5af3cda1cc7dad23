package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// showStatementTimeout is statement_timeout as a pool session of d sees it.
func showStatementTimeout(t *testing.T, d *db.DB) string {
	var s string
	require.NoError(t, d.QueryRowContext(context.Background(), "SHOW statement_timeout").Scan(&s))
	return s
}

// Options.StatementTimeout 0 keeps the server's setting (here the
// database's, as an operator would set it); a positive one replaces it.
func TestOpenKeepsTheServersStatementTimeoutUnlessTold(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDSN(t)
	cfg, err := pgx.ParseConfig(dsn)
	require.NoError(t, err)
	_, err = open(t, dsn).ExecContext(ctx,
		"ALTER DATABASE "+pgx.Identifier{cfg.Database}.Sanitize()+" SET statement_timeout = '45s'")
	require.NoError(t, err)

	require.Equal(t, "45s", showStatementTimeout(t, open(t, dsn)), "the database's setting, untouched")

	d, err := db.Open(ctx, dsn, db.Options{StatementTimeout: 1500 * time.Millisecond})
	require.NoError(t, err)
	defer d.Close()
	require.Equal(t, "1500ms", showStatementTimeout(t, d))
}

// Open adds the PgBouncer advice only to a pooler's refusal of a startup
// parameter (SQLSTATE 08P01, TestPgBouncerRefusalNamesTheSetting), not to
// any failure to connect whose text happens to carry the same words: here
// PostgreSQL's own "database does not exist", for a database so named.
func TestOpenExplainsOnlyAPoolersRefusal(t *testing.T) {
	dsn := pgtest.NewDSN(t) + " dbname='unsupported startup parameter: jit'" // the last dbname counts
	_, err := db.Open(context.Background(), dsn)
	require.ErrorContains(t, err, "unsupported startup parameter")
	require.Equal(t, "3D000", db.PgCode(err), "%v", err)
	require.NotContains(t, err.Error(), "ignore_startup_parameters")
}
