package pgcluster_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgcluster"
)

// Restart (pg_ctl restart -m mode) ends the sessions, starts a new server
// with the settings it had, returns once it accepts connections, and keeps
// the data; an unknown mode is refused before anything stops.
func TestRestartKeepsTheData(t *testing.T) {
	ctx := context.Background()
	s, err := pgcluster.Acquire(ctx, tempDir(t), "pact")
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Release()) }()
	dsn := s.DSN("pact")
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
	require.NoError(t, err)
	for _, mode := range []string{"fast", "immediate"} {
		require.NoError(t, s.Restart(ctx, mode))
		require.Error(t, conn.Ping(ctx), "-m %s: the old session has ended", mode)
		require.Equal(t, 7, query(t, dsn, "SELECT n FROM kept"), "-m %s", mode)
		conn, err = pgx.Connect(ctx, dsn)
		require.NoError(t, err)
	}
	defer conn.Close(ctx)
	require.Error(t, s.Restart(ctx, "gentle"))
	require.NoError(t, conn.Ping(ctx), "a refused mode stops nothing")
}
