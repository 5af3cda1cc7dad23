package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
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

// The settings PACT_TEST_PG_SETTINGS names reach the test binary's
// cluster. The test runs itself again with them set (fsync on, which the
// throwaway turns off, and a work_mem of its own); in that run, and in any
// run where they are set, each is the server's setting.
func TestSettingsFromTheEnvironmentReachTheCluster(t *testing.T) {
	ctx := context.Background()
	if settings := os.Getenv(pgtest.SettingsEnv); settings != "" {
		d := pgtest.New(t)
		for _, pair := range strings.Fields(settings) {
			name, want, _ := strings.Cut(pair, "=")
			var got string
			require.NoError(t, d.QueryRowContext(ctx, "SELECT current_setting(?)", name).Scan(&got))
			require.Equal(t, want, got, "%s", name)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSettingsFromTheEnvironmentReachTheCluster$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), pgtest.SettingsEnv+"=fsync=on work_mem=5MB")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestSettingsFromTheEnvironmentReachTheCluster")
}
