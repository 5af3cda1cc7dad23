package pgcluster

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Without PG_BIN, the pg_ctl on PATH names the binaries, wherever it is and
// whatever /usr/lib/postgresql holds; a symlink on PATH is followed to the
// directory that holds the real files.
func TestPgCtlOnThePathIsPreferredToTheInstalledVersions(t *testing.T) {
	installed, err := FindBinaries()
	require.NoError(t, err)
	// A pg_ctl of its own, copied (a symlink would resolve to the installed
	// directory), beside the server tools it goes with.
	own, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	copyExecutable(t, filepath.Join(installed, "pg_ctl"), filepath.Join(own, "pg_ctl"))
	for _, tool := range []string{"initdb", "postgres"} {
		require.NoError(t, os.Symlink(filepath.Join(installed, tool), filepath.Join(own, tool)))
	}
	t.Setenv("PG_BIN", "")

	t.Setenv("PATH", own)
	got, err := FindBinaries()
	require.NoError(t, err)
	require.Equal(t, own, got)

	onPath := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(own, "pg_ctl"), filepath.Join(onPath, "pg_ctl")))
	t.Setenv("PATH", onPath)
	got, err = FindBinaries()
	require.NoError(t, err)
	require.Equal(t, own, got, "the symlink's target directory, not the symlink's")
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

// reachable refuses a data directory under any parent, however far up, that
// the server's user may not cross (no o+x, and not its own), naming it;
// a parent the server's user owns, or no server user of its own, is fine.
func TestReachableNamesTheParentTheServerUserCannotCross(t *testing.T) {
	base, err := os.MkdirTemp("", "pact-reachable-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	private := filepath.Join(base, "private")
	open := filepath.Join(private, "open")
	require.NoError(t, os.MkdirAll(open, 0o755))
	require.NoError(t, os.Chmod(private, 0o700))
	me := &syscall.Credential{Uid: uint32(os.Geteuid()), Gid: uint32(os.Getegid())}
	stranger := &syscall.Credential{Uid: me.Uid + 1, Gid: me.Gid}

	require.NoError(t, reachable(filepath.Join(base, "pg"), stranger), "every parent is open")
	require.ErrorContains(t, reachable(filepath.Join(private, "pg"), stranger), "cannot enter "+private+";")
	require.ErrorContains(t, reachable(filepath.Join(open, "pg"), stranger), "cannot enter "+private+";",
		"a grandparent counts as much as the parent")
	require.NoError(t, reachable(filepath.Join(open, "pg"), me), "the server's user owns the closed parent")
	require.NoError(t, reachable(filepath.Join(open, "pg"), nil), "the server runs as this process's user")
	require.Error(t, reachable(filepath.Join(base, "gone", "pg"), stranger), "a parent that is not there")
}

// chownTree gives a directory and everything under it to the server's user,
// and changes nothing when the server runs as this process's user.
func TestChownTreeGivesEveryFileToTheServerUser(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	for _, f := range []string{"top", "a/mid", "a/b/deep"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	owners := func() map[string][2]uint32 {
		got := map[string][2]uint32{}
		require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			require.NoError(t, err)
			st := info.Sys().(*syscall.Stat_t)
			got[p] = [2]uint32{st.Uid, st.Gid}
			return nil
		}))
		require.Len(t, got, 6)
		return got
	}
	before := owners()
	require.NoError(t, chownTree(dir, nil))
	require.Equal(t, before, owners(), "no server user: nothing changes")

	if os.Geteuid() != 0 {
		t.Skip("only root can give files to another user")
	}
	// Any numbers: root may give files to a uid without a name.
	require.NoError(t, chownTree(dir, &syscall.Credential{Uid: 4242, Gid: 4243}))
	for p, owner := range owners() {
		require.Equal(t, [2]uint32{4242, 4243}, owner, "%s", p)
	}
}

// newestChild marks the run of TestTheNewestInstalledVersionIsUsed inside
// its mount namespace.
const newestChild = "PACT_TEST_NEWEST_VERSION_CHILD"

// Without PG_BIN or a pg_ctl on PATH, the newest /usr/lib/postgresql/<version>
// that holds the tools is used, newest by number (15 before 10 and 9.6; 16
// has no tools). No test may change the machine's /usr/lib/postgresql, so
// the test runs itself again in a mount namespace of its own (root only),
// where a directory of versions made here stands in for it. Its tools are
// symlinks to the installed ones, reached there through .real.
func TestTheNewestInstalledVersionIsUsed(t *testing.T) {
	const lib = "/usr/lib/postgresql"
	if os.Getenv(newestChild) != "" {
		t.Setenv("PG_BIN", "")
		t.Setenv("PATH", t.TempDir())
		got, err := FindBinaries()
		require.NoError(t, err)
		require.Equal(t, lib+"/15/bin", got)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("needs root and unshare(1) to stand a directory in for " + lib)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("no %s to stand a directory in for", lib)
	}
	installed, err := FindBinaries()
	require.NoError(t, err)
	if rel, err := filepath.Rel(lib, installed); err == nil && !strings.HasPrefix(rel, "..") {
		installed = filepath.Join(lib, ".real", rel)
	}
	versions := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(versions, ".real"), 0o755))
	for _, v := range []string{"9.6", "10", "15", "16"} {
		bin := filepath.Join(versions, v, "bin")
		require.NoError(t, os.MkdirAll(bin, 0o755))
		for _, tool := range serverTools {
			if v != "16" {
				require.NoError(t, os.Symlink(filepath.Join(installed, tool), filepath.Join(bin, tool)))
			}
		}
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c",
		`mount --bind "$1" "$2/.real" && mount --rbind "$2" "$1" && exec "$3" -test.run "$4" -test.count=1 -test.v`,
		"sh", lib, versions, os.Args[0], "^TestTheNewestInstalledVersionIsUsed$")
	cmd.Env = append(os.Environ(), newestChild+"=1")
	out, err := cmd.CombinedOutput()
	if !strings.Contains(string(out), "=== RUN") {
		t.Skipf("no mount namespace to run in (%v):\n%s", err, out)
	}
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "--- PASS: TestTheNewestInstalledVersionIsUsed")
}
