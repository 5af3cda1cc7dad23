package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A server pg_ctl could not start is reported with the end of its log: the
// last 2000 bytes, which say why, and not the earlier runs before them.
func TestAFailedStartShowsOnlyTheEndOfTheServerLog(t *testing.T) {
	base, err := os.MkdirTemp("", "pact-failed-start-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	c, err := New(filepath.Join(base, "pg"))
	require.NoError(t, err)
	c.SocketDir = filepath.Join(c.Dir, "run")
	require.NoError(t, c.initFromTemplate())
	logFile := filepath.Join(c.Dir, "postgres.log")
	earlier := "EARLIEST LINE\n" + strings.Repeat("a line of an earlier run of this server\n", 100)
	require.NoError(t, os.WriteFile(logFile, []byte(earlier), 0o600))
	if c.cred != nil { // pg_ctl, as the server's user, appends to it
		require.NoError(t, os.Lchown(logFile, int(c.cred.Uid), int(c.cred.Gid)))
	}

	err = c.Start(context.Background(), "no_such_setting=1")
	require.Error(t, err)
	log, rerr := os.ReadFile(logFile)
	require.NoError(t, rerr)
	require.Greater(t, len(log), 2000)
	require.True(t, strings.HasSuffix(err.Error(), "\n"+string(log[len(log)-2000:])),
		"the error ends with the log's last 2000 bytes:\n%s", err)
	require.NotContains(t, err.Error(), "EARLIEST LINE", "no more than 2000 bytes of log")
	require.Contains(t, err.Error(), `unrecognized configuration parameter "no_such_setting"`)
	require.False(t, c.Running(context.Background()))
}
