package claudecode_test

import (
	"strings"
	"testing"

	"github.com/pactboard/pact/sdk/claudecode"
)

// The pinned CLI installs and runs offline, in an empty home, and is the
// version the package says.
func TestInstalledCLIRunsOffline(t *testing.T) {
	bin := claudecode.Install(t)
	out := claudecode.Run(t, bin, t.TempDir(), t.TempDir(), "--version")
	if !strings.HasPrefix(strings.TrimSpace(out), claudecode.Version+" ") {
		t.Fatalf("claude --version: %q, want %s", out, claudecode.Version)
	}
}
