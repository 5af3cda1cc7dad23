package pgcluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const oddNameChild = "PACT_TEST_ODD_NAME_CHILD"

// A user name pg_ident.conf cannot hold is refused whoever's it is: this
// process's as much as the server's. The test runs itself again in a mount
// namespace whose /etc/passwd names uid 0 "pact board" (root only).
func TestAUserNamePgIdentCannotHoldIsRefusedWhenTheServerRunsAsThisProcess(t *testing.T) {
	if os.Getenv(oddNameChild) != "" {
		_, err := peerUsers(nil)
		require.ErrorContains(t, err, "cannot be written to pg_ident.conf")
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	b, err := os.ReadFile("/etc/passwd")
	require.NoError(t, err)
	passwd := filepath.Join(t.TempDir(), "passwd")
	odd := regexp.MustCompile(`(?m)^root:`).ReplaceAll(b, []byte("pact board:"))
	require.NoError(t, os.WriteFile(passwd, odd, 0o644))
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount --bind "$1" /etc/passwd && exec "$2" -test.run "$3" -test.count=1 -test.v`,
		"sh", passwd, os.Args[0], "^TestAUserNamePgIdentCannotHoldIsRefusedWhenTheServerRunsAsThisProcess$")
	cmd.Env = append(os.Environ(), oddNameChild+"=1")
	out, err := cmd.CombinedOutput()
	if !strings.Contains(string(out), "=== RUN") {
		t.Skipf("no mount namespace to run in (%v):\n%s", err, out)
	}
	require.NoError(t, err, "%s", out)
}
