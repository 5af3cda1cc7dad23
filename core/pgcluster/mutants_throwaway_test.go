package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// scalar runs q, which returns one integer, on a connection of its own.
func scalar(t *testing.T, dsn, q string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(t, conn.QueryRow(ctx, q).Scan(&n))
	return n
}

// postmasterPid is the pid the running server wrote into its data
// directory: the postmaster's, which Pid must report.
func postmasterPid(t *testing.T, c *Cluster) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dataDir(), "postmaster.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	require.NoError(t, err)
	return pid
}

// Down stops the server and returns once it has; Up brings it back with the
// data it had; Restart is both, and a new postmaster answers. Pid follows
// each step, and an unknown mode stops nothing.
func TestAThrowawayGoesDownAndComesBackUpWithItsData(t *testing.T) {
	ctx := context.Background()
	tw, err := StartThrowaway(ctx)
	require.NoError(t, err)
	defer tw.Destroy()
	first := tw.Pid()
	require.Equal(t, postmasterPid(t, tw.Cluster), first, "Pid is the running postmaster's")
	conn, err := pgx.Connect(ctx, tw.DSN("postgres"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))

	require.NoError(t, tw.Down("fast"))
	require.Zero(t, tw.Pid(), "the server has exited when Down returns")
	require.False(t, tw.Running(ctx))

	require.NoError(t, tw.Up(ctx))
	require.NotZero(t, tw.Pid())
	require.NotEqual(t, first, tw.Pid(), "Up starts a new postmaster")
	require.Equal(t, postmasterPid(t, tw.Cluster), tw.Pid())
	require.Equal(t, 7, scalar(t, tw.DSN("postgres"), "SELECT n FROM kept"))

	before := tw.Pid()
	require.NoError(t, tw.Restart(ctx, "immediate"))
	require.NotZero(t, tw.Pid(), "Restart leaves the server up")
	require.NotEqual(t, before, tw.Pid(), "Restart starts a new postmaster")
	require.Equal(t, 7, scalar(t, tw.DSN("postgres"), "SELECT n FROM kept"), "recovered from the WAL")

	require.Error(t, tw.Down("gentle"))
	require.True(t, tw.Running(ctx), "a refused mode stops nothing")
}

// Destroy is a fast shutdown the server finishes (it exits by itself,
// status 0, not killed) before its files are removed: a test that destroys
// its cluster leaves no server behind, still running or half stopped.
func TestDestroyShutsTheServerDownCleanlyBeforeItRemovesTheFiles(t *testing.T) {
	tw, err := StartThrowaway(context.Background())
	require.NoError(t, err)
	cmd, done := tw.cmd, tw.done
	// Were Destroy to leave the server running, it is not left to the end
	// of the test binary.
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	tw.Destroy()
	select {
	case <-done:
	default:
		t.Fatal("Destroy returned while the server still ran")
	}
	require.True(t, cmd.ProcessState.Success(), "the server shut down by itself: %v", cmd.ProcessState)
	require.Zero(t, tw.Pid())
	_, err = os.Stat(tw.Dir)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// A server that exits before it accepts connections is reported with the
// end of its log: the last 2000 bytes, which hold why, and not the lines of
// earlier runs before them.
func TestAServerThatExitsAtStartShowsTheEndOfItsLog(t *testing.T) {
	ctx := context.Background()
	tw, err := StartThrowaway(ctx)
	require.NoError(t, err)
	defer tw.Destroy()
	require.NoError(t, tw.Down("fast"))
	logPath := filepath.Join(tw.Dir, "postgres.log")
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("EARLIEST LINE\n" + strings.Repeat("a line of an earlier run of this server\n", 100))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Remove(filepath.Join(tw.dataDir(), "global", "pg_control")))

	require.NoError(t, tw.spawn())
	err = tw.waitStarted(ctx)
	require.ErrorContains(t, err, "exited before it accepted connections")
	log, rerr := os.ReadFile(logPath)
	require.NoError(t, rerr)
	require.Greater(t, len(log), 2000)
	require.True(t, strings.HasSuffix(err.Error(), ":\n"+string(log[len(log)-2000:])),
		"the error ends with the log's last 2000 bytes:\n%s", err)
	require.NotContains(t, err.Error(), "EARLIEST LINE", "no more than 2000 bytes of log")
	require.Contains(t, err.Error(), "pg_control", "the reason is in the end shown")
}

// Throwaways of two server users do not share a template: the copy keeps
// each file's owner, and one user's files are no use to the other's server.
func TestEachServerUserHasATemplateOfItsOwn(t *testing.T) {
	c, err := New(filepath.Join(t.TempDir(), "unused"))
	require.NoError(t, err)
	a, b := *c, *c
	a.cred = &syscall.Credential{Uid: 4001, Gid: 4001}
	b.cred = &syscall.Credential{Uid: 4002, Gid: 4001}
	ta, err := a.templateDir()
	require.NoError(t, err)
	tb, err := b.templateDir()
	require.NoError(t, err)
	require.NotEqual(t, ta, tb)
	again, err := a.templateDir()
	require.NoError(t, err)
	require.Equal(t, ta, again, "one user's is always the same")
}

// A throwaway started with settings runs with them, after its own, and
// keeps them when it comes back up.
func TestAThrowawayKeepsTheSettingsItWasStartedWith(t *testing.T) {
	ctx := context.Background()
	tw, err := StartThrowaway(ctx, "work_mem=7MB", "max_connections=40")
	require.NoError(t, err)
	defer tw.Destroy()
	const workMem = "SELECT setting::int FROM pg_settings WHERE name = 'work_mem'"      // in kB
	const conns = "SELECT setting::int FROM pg_settings WHERE name = 'max_connections'" // the caller's, not 300
	require.Equal(t, 7*1024, scalar(t, tw.DSN("postgres"), workMem))
	require.Equal(t, 40, scalar(t, tw.DSN("postgres"), conns))
	require.NoError(t, tw.Restart(ctx, "fast"))
	require.Equal(t, 7*1024, scalar(t, tw.DSN("postgres"), workMem), "Up keeps them")
	require.Equal(t, 40, scalar(t, tw.DSN("postgres"), conns))
}
