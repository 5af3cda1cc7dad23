package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// With ListenURL set, Probe opens a connection of its own there: a direct
// one reads as no pooler, and one it cannot open fails the probe, naming
// DATABASE_LISTEN_URL, rather than reporting what it did not see.
func TestProbeConnectsToTheListenURL(t *testing.T) {
	ctx := context.Background()
	other := pgtest.NewDSN(t)
	d, err := db.Open(ctx, pgtest.NewDSN(t), db.Options{ListenURL: other})
	require.NoError(t, err)
	defer d.Close()
	s, err := d.Probe(ctx)
	require.NoError(t, err)
	require.Equal(t, db.Session{JIT: "off"}, s)

	// The listen database goes away after Open checked it.
	cfg, err := pgx.ParseConfig(other)
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, "DROP DATABASE "+pgx.Identifier{cfg.Database}.Sanitize()+" WITH (FORCE)")
	require.NoError(t, err)
	_, err = d.Probe(ctx)
	require.ErrorContains(t, err, "DATABASE_LISTEN_URL")
	require.Equal(t, "3D000", db.PgCode(err), "invalid_catalog_name: %v", err)
}
