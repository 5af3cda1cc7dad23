package pgcluster

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// pgBouncerBinary is $PACT_PGBOUNCER, as core/pgtest reads it: the test is
// skipped without it.
func pgBouncerBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("PACT_PGBOUNCER")
	if bin == "" {
		t.Skip("PACT_PGBOUNCER is unset: set it to a pgbouncer binary (make pgbouncer-check)")
	}
	return bin
}

// startPgBouncer starts PgBouncer in front of a throwaway server.
func startPgBouncer(t *testing.T, bin string, tw *Throwaway, mode string) *PgBouncer {
	t.Helper()
	p, err := StartPgBouncer(context.Background(),
		PgBouncerOptions{Binary: bin, Host: tw.SocketDir, Port: uint16(tw.Port), PoolMode: mode})
	require.NoError(t, err)
	t.Cleanup(p.Stop)
	return p
}

func startThrowaway(t *testing.T) *Throwaway {
	t.Helper()
	tw, err := StartThrowaway(context.Background())
	require.NoError(t, err)
	t.Cleanup(tw.Destroy)
	return tw
}

// poolMode is the pool_mode PgBouncer runs with, as its admin console says.
func poolMode(t *testing.T, p *PgBouncer) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, p.DSN("pgbouncer")+" default_query_exec_mode=simple_protocol")
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SHOW CONFIG")
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		v, err := rows.Values()
		require.NoError(t, err)
		if v[0] == "pool_mode" {
			return v[1].(string)
		}
	}
	require.NoError(t, rows.Err())
	t.Fatal("SHOW CONFIG has no pool_mode")
	return ""
}

// No PoolMode is transaction pooling, the board's usual pooler; a mode
// given is kept.
func TestPgBouncerPoolsTransactionsUnlessToldOtherwise(t *testing.T) {
	bin := pgBouncerBinary(t)
	tw := startThrowaway(t)
	require.Equal(t, "transaction", poolMode(t, startPgBouncer(t, bin, tw, "")))
	require.Equal(t, "session", poolMode(t, startPgBouncer(t, bin, tw, "session")))
}

// Stop returns once PgBouncer has exited on its SIGTERM (not killed), its
// directory removed: nothing of it is left behind for the next test.
func TestPgBouncerStopWaitsUntilItHasExited(t *testing.T) {
	p := startPgBouncer(t, pgBouncerBinary(t), startThrowaway(t), "")
	cmd, done := p.cmd, p.done
	// Were Stop to leave it running, it is not left to the end of the
	// test binary.
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	p.Stop()
	select {
	case <-done:
	default:
		t.Fatal("Stop returned while PgBouncer still ran")
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.False(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL, "it exited by itself: %v", cmd.ProcessState)
	_, err := os.Stat(p.Dir)
	require.ErrorIs(t, err, os.ErrNotExist)
}
