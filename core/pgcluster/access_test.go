package pgcluster_test

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgcluster"
)

// serverUID is the uid PostgreSQL runs as: ours, or postgres (else nobody)
// when the tests run as root.
func serverUID(t *testing.T) uint32 {
	if os.Geteuid() != 0 {
		return uint32(os.Geteuid())
	}
	for _, name := range []string{"postgres", "nobody"} {
		if u, err := user.Lookup(name); err == nil {
			uid, _ := strconv.Atoi(u.Uid)
			return uint32(uid)
		}
	}
	t.Fatal("running as root without a postgres or nobody user")
	return 0
}

// requirePrivate fails unless dir is a directory only the server's user may
// enter (mode 0700, owned by it): root still can, nobody else.
func requirePrivate(t *testing.T, dir string) {
	t.Helper()
	st, err := os.Lstat(dir)
	require.NoError(t, err)
	require.True(t, st.IsDir(), "%s is a directory", dir)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "%s lets other local users in", dir)
	require.Equal(t, serverUID(t), st.Sys().(*syscall.Stat_t).Uid, "%s belongs to the server's user", dir)
}

// requireNoTrust fails unless every rule of the cluster's pg_hba.conf is a
// local (Unix socket) rule checked by peer authentication.
func requireNoTrust(t *testing.T, s *pgcluster.Shared) {
	t.Helper()
	hba, err := os.ReadFile(filepath.Join(s.Dir, "data", "pg_hba.conf"))
	require.NoError(t, err)
	rules := 0
	for _, line := range strings.Split(string(hba), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		rules++
		require.Equal(t, "local", f[0], "pg_hba.conf rule %q", line)
		require.Contains(t, f, "peer", "pg_hba.conf rule %q", line)
		require.NotContains(t, f, "trust", "pg_hba.conf rule %q", line)
	}
	require.Positive(t, rules, "pg_hba.conf has rules")
}

// otherUser is a local user that is neither us nor the server's user, to
// connect as (only root can switch to it).
func otherUser(t *testing.T) *syscall.Credential {
	for _, name := range []string{"nobody", "daemon", "bin"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if uint32(uid) != serverUID(t) && uid != 0 {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
	}
	t.Skip("no local user other than root and the server's to connect as")
	return nil
}

// SEC-011: another local user cannot reach the embedded server's socket,
// and the server would not trust them if they could.
func TestEmbeddedClusterAdmitsNoOtherLocalUser(t *testing.T) {
	ctx := context.Background()
	s, err := pgcluster.Acquire(ctx, tempDir(t), "pact")
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Release()) }()
	require.Equal(t, 1, query(t, s.DSN("pact"), "SELECT 1"), "the board itself still connects")

	requirePrivate(t, s.Dir)
	requirePrivate(t, s.SocketDir)
	requireNoTrust(t, s)
	socket, err := os.Stat(filepath.Join(s.SocketDir, ".s.PGSQL."+strconv.Itoa(s.Port)))
	require.NoError(t, err)
	require.Zero(t, socket.Mode().Perm()&0o077, "the socket itself is the server user's alone")

	if os.Geteuid() != 0 {
		return // only root can act as another local user
	}
	bin, err := pgcluster.FindBinaries()
	require.NoError(t, err)
	psql := filepath.Join(bin, "psql")
	if _, err := os.Stat(psql); err != nil {
		t.Skipf("no psql in %s to connect as another user with", bin)
	}
	cmd := exec.Command(psql, "-h", s.SocketDir, "-p", strconv.Itoa(s.Port), "-U", "postgres", "-d", "pact",
		"-w", "-c", "SELECT 1")
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: otherUser(t)}
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "another local user connected as the superuser:\n%s", out)
}

// SEC-011: a cluster whose path is too long for a socket under it gets a
// socket directory nobody could have made ready for it: one another user
// created at the name New reports first is not used, and the one used is
// private and found again by the next start.
func TestLongClusterPathsGetNoPredictableSocketDirectory(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(tempDir(t), strings.Repeat("d", 90))
	c, err := pgcluster.New(dir)
	require.NoError(t, err)
	squatted := c.SocketDir
	if squatted != "" {
		require.NoError(t, os.MkdirAll(squatted, 0o777))
		require.NoError(t, os.Chmod(squatted, 0o777))
		t.Cleanup(func() { _ = os.RemoveAll(squatted) })
	}

	s, err := pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	require.NotEqual(t, squatted, s.SocketDir, "a socket directory named before the start is not used")
	requirePrivate(t, s.SocketDir)
	require.Equal(t, 1, query(t, s.DSN("pact"), "SELECT 1"))
	first := s.SocketDir
	t.Cleanup(func() { _ = os.RemoveAll(first) })
	require.NoError(t, s.Release())

	s, err = pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Release()) }()
	requirePrivate(t, s.SocketDir)
	require.Equal(t, first, s.SocketDir, "the next start finds its socket directory again")
	require.Equal(t, 1, query(t, s.DSN("pact"), "SELECT 1"))
}

// SEC-011: a cluster made by an older board (trust in pg_hba.conf, open
// directories) is made private on its next start, and its data is kept.
func TestOlderClusterLosesTrustOnItsNextStart(t *testing.T) {
	ctx := context.Background()
	dir := tempDir(t)
	s, err := pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, s.DSN("pact"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)")
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	require.NoError(t, s.Release())

	hba := filepath.Join(s.Dir, "data", "pg_hba.conf")
	require.NoError(t, os.WriteFile(hba, []byte("local all all trust\nhost all all 127.0.0.1/32 trust\n"), 0o600))
	require.NoError(t, os.Chmod(s.Dir, 0o755))
	require.NoError(t, os.Chmod(s.SocketDir, 0o755))

	s, err = pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Release()) }()
	requirePrivate(t, s.Dir)
	requirePrivate(t, s.SocketDir)
	requireNoTrust(t, s)
	require.Equal(t, 7, query(t, s.DSN("pact"), "SELECT x FROM kept"))
}

// SEC-011: a server an older board started, still trusting every local
// connection, reads the new rules as soon as a board joins it.
func TestRunningOlderServerReloadsTheRulesWhenABoardJoins(t *testing.T) {
	ctx := context.Background()
	dir := tempDir(t)
	older, err := pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	defer func() { require.NoError(t, older.Release()) }()
	hba := filepath.Join(older.Dir, "data", "pg_hba.conf")
	require.NoError(t, os.WriteFile(hba, []byte("local all all trust\n"), 0o600))
	require.NoError(t, os.Chmod(older.SocketDir, 0o755))
	conn, err := pgx.Connect(ctx, older.DSN("postgres"))
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "SELECT pg_reload_conf()")
	require.NoError(t, err)
	var loaded time.Time
	require.Eventually(t, func() bool {
		var trusting int
		require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method = 'trust'").Scan(&trusting))
		require.NoError(t, conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&loaded))
		return trusting == 1
	}, 5*time.Second, 50*time.Millisecond, "the older server trusts local connections")

	joined, err := pgcluster.Acquire(ctx, dir, "pact")
	require.NoError(t, err)
	defer func() { require.NoError(t, joined.Release()) }()
	requirePrivate(t, joined.SocketDir)
	requireNoTrust(t, joined)
	require.Eventually(t, func() bool {
		var reloaded bool
		require.NoError(t, conn.QueryRow(ctx, "SELECT pg_conf_load_time() > $1", loaded).Scan(&reloaded))
		return reloaded
	}, 10*time.Second, 50*time.Millisecond, "the running server reloads the rules the joining board wrote")
}
