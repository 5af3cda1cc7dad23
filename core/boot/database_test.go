package boot_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/core/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func testLogger(out *logtest.Buffer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: out, Level: hclog.Debug})
}

func TestOpenDatabaseExternal(t *testing.T) {
	ctx := context.Background()
	var logs logtest.Buffer
	cfg := config(t, map[string]string{"DATABASE_URL": pgtest.NewDSN(t)})
	d, release, err := boot.OpenDatabase(ctx, cfg, testLogger(&logs))
	require.NoError(t, err)
	require.NoError(t, d.PingContext(ctx))
	require.Contains(t, logs.String(), "schema is up to date", "the test database is migrated already")
	require.NotContains(t, logs.String(), "[WARN]", "a direct connection is no pooler, and its sessions have jit off")
	require.NoError(t, release())
}

// DATABASE_LISTEN_URL is where the listeners connect, checked at start.
func TestOpenDatabaseListenURL(t *testing.T) {
	ctx := context.Background()
	dsn, other := pgtest.NewDSN(t), pgtest.NewDSN(t)
	d, release, err := boot.OpenDatabase(ctx, config(t, map[string]string{"DATABASE_URL": dsn, "DATABASE_LISTEN_URL": other}),
		hclog.NewNullLogger())
	require.NoError(t, err)
	defer release()
	want, err := pgx.ParseConfig(other)
	require.NoError(t, err)
	require.Equal(t, want.Database, d.ListenConfig().Database)

	_, _, err = boot.OpenDatabase(ctx, config(t, map[string]string{"DATABASE_URL": dsn,
		"DATABASE_LISTEN_URL": "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"}), hclog.NewNullLogger())
	require.ErrorContains(t, err, "connect to PostgreSQL at DATABASE_LISTEN_URL")
}

func TestOpenDatabaseBadURL(t *testing.T) {
	cfg := config(t, map[string]string{"DATABASE_URL": "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"})
	_, _, err := boot.OpenDatabase(context.Background(), cfg, hclog.NewNullLogger())
	require.ErrorContains(t, err, "connect to PostgreSQL")
}

// The embedded default: the first start initialises and migrates a cluster,
// the next one finds the data again, and release stops the server.
func TestOpenDatabaseEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	ctx := context.Background()
	dir := embeddedDataDir(t)
	cfg := config(t, map[string]string{"PACT_DATA_DIR": dir})

	var logs logtest.Buffer
	d, release, err := boot.OpenDatabase(ctx, cfg, testLogger(&logs))
	require.NoError(t, err)
	require.Contains(t, logs.String(), "embedded PostgreSQL")
	require.Contains(t, logs.String(), filepath.Join(dir, "pg"))
	require.Contains(t, logs.String(), "applied migrations")
	require.NotContains(t, logs.String(), "[WARN]", "DATABASE_LISTEN_URL is unset: nothing is ignored")
	_, err = d.ExecContext(ctx, "INSERT INTO orgs (id, name, system_chain) VALUES ('kept', 'Kept', '_system:kept')")
	require.NoError(t, err)
	require.NoError(t, release())

	c, err := pgcluster.New(filepath.Join(dir, "pg"))
	require.NoError(t, err)
	require.False(t, c.Running(ctx), "the last user stops the server")

	logs = logtest.Buffer{}
	d, release, err = boot.OpenDatabase(ctx, cfg, testLogger(&logs))
	require.NoError(t, err)
	defer func() { require.NoError(t, release()) }()
	require.NotContains(t, logs.String(), "applied migrations")
	var n int
	require.NoError(t, d.QueryRowContext(ctx, "SELECT count(*) FROM orgs WHERE id = 'kept'").Scan(&n))
	require.Equal(t, 1, n, "data survives a restart")
}

// embeddedDataDir is a PACT_DATA_DIR for an embedded cluster, removed when
// t ends. Not t.TempDir: as root the server runs as postgres, which must be
// able to enter every parent directory.
func embeddedDataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pact-boot-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// On the embedded cluster DATABASE_LISTEN_URL is ignored, and the board says
// so: the listeners reach the embedded database directly, so a listen URL
// that leads nowhere does not stop the start.
func TestEmbeddedDatabaseIgnoresTheListenURLAndSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	ctx := context.Background()
	cfg := config(t, map[string]string{"PACT_DATA_DIR": embeddedDataDir(t),
		"DATABASE_LISTEN_URL": "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"})
	var logs logtest.Buffer
	d, release, err := boot.Connect(ctx, cfg, testLogger(&logs))
	require.NoError(t, err)
	defer func() { require.NoError(t, release()) }()
	require.Equal(t, boot.EmbeddedDatabase, d.ListenConfig().Database)
	require.Contains(t, logs.String(), "[WARN]  DATABASE_LISTEN_URL is ignored without DATABASE_URL")
}

func TestOpenDatabaseWithoutBinaries(t *testing.T) {
	t.Setenv("PG_BIN", t.TempDir())
	cfg := config(t, map[string]string{"PACT_DATA_DIR": t.TempDir()})
	_, _, err := boot.OpenDatabase(context.Background(), cfg, hclog.NewNullLogger())
	require.ErrorIs(t, err, pgcluster.ErrNoBinaries)
	require.Contains(t, err.Error(), "apt-get install postgresql")
	require.False(t, strings.Contains(err.Error(), "\n"), "one line")
}

func TestConnectDoesNotMigrate(t *testing.T) {
	ctx := context.Background()
	var logs logtest.Buffer
	cfg := config(t, map[string]string{"DATABASE_URL": pgtest.NewDSN(t)})
	d, release, err := boot.Connect(ctx, cfg, testLogger(&logs))
	require.NoError(t, err)
	require.NoError(t, d.PingContext(ctx))
	require.NotContains(t, logs.String(), "schema is up to date")
	require.NoError(t, release())
}
