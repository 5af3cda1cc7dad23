package pgcluster

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireOwnedByServer fails unless path belongs to c's server user and has
// mode perm: what PostgreSQL, running as that user, needs to read it and
// nobody else may.
func requireOwnedByServer(t *testing.T, c *Cluster, path string, perm os.FileMode) {
	t.Helper()
	st, err := os.Lstat(path)
	require.NoError(t, err)
	require.Equal(t, perm, st.Mode().Perm(), "%s", path)
	require.Equal(t, uidOf(c.cred), st.Sys().(*syscall.Stat_t).Uid, "%s belongs to the server's user", path)
}

// A socket's path may have ~107 bytes; the cluster keeps its socket in
// DIR/run as long as that and the lock file's name take at most 100.
func TestASocketDirectoryOfUpTo81BytesIsTheClustersOwn(t *testing.T) {
	fits := "/" + strings.Repeat("d", 80) // 81 + len("/.s.PGSQL.5432.lock") = 100
	require.True(t, socketDirFits(fits))
	require.False(t, socketDirFits(fits+"d"))

	// Through New: a cluster whose DIR/run is 81 bytes uses it.
	dir := filepath.Join(t.TempDir(), "pg")
	if len(dir+"/run") > 81 {
		t.Skipf("the temporary directory %s is too long to make an 81-byte path under", dir)
	}
	dir += strings.Repeat("d", 81-len(dir+"/run"))
	c, err := New(dir)
	require.NoError(t, err)
	require.Len(t, c.SocketDir, 81)
	require.Equal(t, filepath.Join(dir, "run"), c.SocketDir)
	c, err = New(dir + "d")
	require.NoError(t, err)
	require.Empty(t, c.SocketDir, "one byte more: a random directory, made at the start")
}

// SEC-011: a cluster too long for a socket of its own does not use a socket
// directory others can enter, whatever names it; it makes a private one of
// its own and records it, the record too belonging to the server's user.
func TestASocketDirectoryOthersCanEnterIsReplaced(t *testing.T) {
	c, err := New(filepath.Join(t.TempDir(), strings.Repeat("d", 90)))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(c.Dir, 0o755))
	open, err := os.MkdirTemp("", "pact-open-socket-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(open) })
	require.NoError(t, os.Chmod(open, 0o777))
	c.SocketDir = open

	require.NoError(t, c.prepareSocketDir())
	t.Cleanup(func() { _ = os.RemoveAll(c.SocketDir) })
	require.NotEqual(t, open, c.SocketDir)
	requireOwnedByServer(t, c, c.SocketDir, 0o700)
	st, err := os.Stat(open)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o777), st.Mode().Perm(), "the open directory is left as it was, unused")

	record := filepath.Join(c.Dir, socketDirRecord)
	b, err := os.ReadFile(record)
	require.NoError(t, err)
	require.Equal(t, c.SocketDir+"\n", string(b))
	requireOwnedByServer(t, c, record, 0o600)
	require.Equal(t, c.SocketDir, c.findSocketDir(), "the next start finds it")
}

// pg_hba.conf and pg_ident.conf are written for the server's user when
// missing, and left alone when they already say what they must: a board
// joining a running server then has it reload nothing.
func TestAccessRulesAreWrittenOnlyWhenTheyDiffer(t *testing.T) {
	c, err := New(filepath.Join(t.TempDir(), "pg"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(c.dataDir(), 0o755))
	hba := filepath.Join(c.dataDir(), "pg_hba.conf")
	ident := filepath.Join(c.dataDir(), "pg_ident.conf")

	changed, err := c.writeAccessRules()
	require.NoError(t, err)
	require.True(t, changed, "missing files are written")
	requireOwnedByServer(t, c, hba, 0o600)
	requireOwnedByServer(t, c, ident, 0o600)
	written, err := os.Stat(hba)
	require.NoError(t, err)

	changed, err = c.writeAccessRules()
	require.NoError(t, err)
	require.False(t, changed, "the same rules again change nothing")
	again, err := os.Stat(hba)
	require.NoError(t, err)
	require.Equal(t, written.ModTime(), again.ModTime(), "and are not rewritten")

	require.NoError(t, os.WriteFile(hba, []byte("local all all trust\n"), 0o600))
	changed, err = c.writeAccessRules()
	require.NoError(t, err)
	require.True(t, changed, "other rules are replaced")
	b, err := os.ReadFile(hba)
	require.NoError(t, err)
	require.Equal(t, hbaRules, string(b))
}

// pg_ident.conf maps this process's user and, when the server runs as
// another, that one too: each once.
func TestPeerUsersAreThisProcesssAndTheServersWhenItDiffers(t *testing.T) {
	me, err := user.Current()
	require.NoError(t, err)
	users, err := peerUsers(nil)
	require.NoError(t, err)
	require.Equal(t, []string{me.Username}, users, "no server user: the server runs as this process's")

	uid, err := strconv.Atoi(me.Uid)
	require.NoError(t, err)
	users, err = peerUsers(&syscall.Credential{Uid: uint32(uid)})
	require.NoError(t, err)
	require.Equal(t, []string{me.Username}, users, "the server's user is this process's: named once")

	for _, name := range []string{"nobody", "daemon", "bin", "postgres"} {
		other, err := user.Lookup(name)
		if err != nil || other.Uid == me.Uid {
			continue
		}
		ouid, err := strconv.Atoi(other.Uid)
		require.NoError(t, err)
		users, err = peerUsers(&syscall.Credential{Uid: uint32(ouid)})
		require.NoError(t, err)
		require.Equal(t, []string{me.Username, other.Username}, users)
		return
	}
	t.Skip("no local user other than this process's to run a server as")
}
