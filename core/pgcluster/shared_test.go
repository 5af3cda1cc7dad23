package pgcluster_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgcluster"
)

func tempDir(t *testing.T) string {
	// Not t.TempDir: as root the server runs as postgres, which must be able
	// to enter every parent directory.
	dir, err := os.MkdirTemp("", "pact-shared-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return filepath.Join(dir, "pg")
}

func query(t *testing.T, dsn, q string) int {
	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), q).Scan(&n))
	return n
}

// Two users of one cluster (a board and pact-admin): the server outlives the
// first to leave and stops with the last. flock locks belong to open files,
// so two Acquires in one process contend exactly as two processes do.
func TestSharedClusterStopsWithItsLastUser(t *testing.T) {
	ctx := context.Background()
	dir := tempDir(t)
	var users [4]*pgcluster.Shared
	var wg sync.WaitGroup
	for i := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := pgcluster.Acquire(ctx, dir, "pact")
			if err != nil {
				t.Error(err)
				return
			}
			users[i] = s
		}()
	}
	wg.Wait()
	require.False(t, t.Failed())
	require.Equal(t, 1, query(t, users[0].DSN("pact"), "SELECT 1"))
	for _, u := range users[:3] {
		require.NoError(t, u.Release())
		require.True(t, users[3].Running(ctx), "the server outlives users that leave while another stays")
	}
	require.NoError(t, users[3].Release())
	require.False(t, users[3].Running(ctx), "the last user stops the server")
}

func TestSharedClusterKeepsDataAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	dir := tempDir(t)
	s, err := pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, s.DSN("pact"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)")
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	require.NoError(t, s.Release())

	s, err = pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Release()) }()
	require.Equal(t, 42, query(t, s.DSN("pact"), "SELECT x FROM kept"))
}

func TestMissingBinariesSayHowToInstallThem(t *testing.T) {
	t.Setenv("PG_BIN", t.TempDir())
	_, err := pgcluster.Acquire(context.Background(), tempDir(t), "pact")
	require.ErrorIs(t, err, pgcluster.ErrNoBinaries)
	require.Contains(t, err.Error(), "apt-get install postgresql")
}
