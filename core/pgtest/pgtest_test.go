package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgcluster"
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

// Under SharedEnv a test binary starts no cluster: it makes its databases
// on the server named, from a template of its own, and leaves nothing
// behind.
func TestBinariesShareAServerNamedInTheEnvironment(t *testing.T) {
	if os.Getenv(pgtest.SharedEnv) != "" {
		t.Skip("already running on a shared server")
	}
	ctx := context.Background()
	c, err := pgcluster.StartThrowaway(ctx)
	require.NoError(t, err)
	t.Cleanup(c.Destroy)
	shared := c.ServerDSN()

	// sessions opened on the server's postgres database: the binary opens
	// one for each database it creates or drops.
	sessions := func() int64 {
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		require.NoError(t, err)
		defer conn.Close(ctx)
		var n int64
		require.NoError(t, conn.QueryRow(ctx, "SELECT sessions FROM pg_stat_database WHERE datname = 'postgres'").Scan(&n))
		return n
	}
	before := sessions()

	run := exec.Command(os.Args[0], "-test.run", "^TestEachTestGetsItsOwnMigratedDatabase$", "-test.count=1", "-test.v")
	run.Env = append(os.Environ(), pgtest.SharedEnv+"="+shared)
	out, err := run.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestEachTestGetsItsOwnMigratedDatabase")
	// Two test databases and a template, each created and dropped.
	require.GreaterOrEqual(t, sessions()-before, int64(6), "the binary made its databases on the shared server")

	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	require.NoError(t, err)
	defer conn.Close(ctx)
	var left []string
	rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE datname NOT IN ('postgres', 'template0', 'template1')")
	require.NoError(t, err)
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		left = append(left, name)
	}
	require.NoError(t, rows.Err())
	require.Empty(t, left, "the binary's template and test databases are dropped")
}
