package pgtest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestEachTestGetsItsOwnMigratedDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.New(t), pgtest.New(t)
	var nameA, nameB string
	require.NoError(t, a.QueryRowContext(ctx, "SELECT current_database()").Scan(&nameA))
	require.NoError(t, b.QueryRowContext(ctx, "SELECT current_database()").Scan(&nameB))
	require.NotEqual(t, nameA, nameB)

	_, err := a.ExecContext(ctx, "INSERT INTO orgs (id, name, system_chain) VALUES ('only-in-a', 'A', '_system:only-in-a')")
	require.NoError(t, err)
	var n int
	require.NoError(t, b.QueryRowContext(ctx, "SELECT count(*) FROM orgs WHERE id = 'only-in-a'").Scan(&n))
	require.Zero(t, n, "databases must not share rows")

	var tz string
	require.NoError(t, a.QueryRowContext(ctx, "SHOW timezone").Scan(&tz))
	require.Equal(t, "UTC", tz)
}
