package db_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/migrations"
)

// shippedMigrations are the embedded migrations' names without ".sql", in
// the order they apply.
func shippedMigrations(t *testing.T) []string {
	names, err := fs.Glob(migrations.Files, "*.sql")
	require.NoError(t, err)
	for i, n := range names {
		names[i] = strings.TrimSuffix(n, ".sql")
	}
	require.NotEmpty(t, names)
	return names
}

// Pending lists every embedded migration a database has not recorded: all
// of them on a database never migrated, the ones missing on a database
// migrated in part, none on a migrated one; and a failure to read the
// record is an error, not "all pending".
func TestPendingListsTheMigrationsNotYetApplied(t *testing.T) {
	ctx := context.Background()
	all := shippedMigrations(t)

	fresh := open(t, pgtest.NewEmptyDSN(t))
	pending, err := fresh.Pending(ctx)
	require.NoError(t, err, "no schema_migrations yet is not an error")
	require.Equal(t, all, pending)

	migrated := open(t, pgtest.NewDSN(t))
	pending, err = migrated.Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, pending)

	// A database that has not had the latest migrations yet.
	last := all[len(all)-1]
	_, err = migrated.ExecContext(ctx, `DELETE FROM schema_migrations WHERE name = ?`, last+".sql")
	require.NoError(t, err)
	pending, err = migrated.Pending(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{last}, pending)

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	pending, err = fresh.Pending(canceled)
	require.ErrorIs(t, err, context.Canceled)
	require.Nil(t, pending)
}
