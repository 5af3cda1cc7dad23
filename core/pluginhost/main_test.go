package pluginhost_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The plugin binaries the tests run, built once by TestMain into binDir:
// the example third-party notifier (its own Go module, built from its
// directory) and testdata/testnotifier, which misbehaves on request.
var binDir string

const (
	helloBin = "notifier-hello"
	testBin  = "testnotifier"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "pluginhost-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	binDir = dir
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go" // where the Makefile looks too
	}
	builds := []struct{ dir, pkg, out string }{
		{"../../plugins/examples/notifier-hello", ".", helloBin}, // its own module: build from inside it
		{".", "./testdata/testnotifier", testBin},
	}
	for _, b := range builds {
		cmd := exec.Command(goBin, "build", "-o", filepath.Join(dir, b.out), b.pkg)
		cmd.Dir = b.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s in %s: %v\n%s", b.pkg, b.dir, err, out)
			return 1
		}
	}
	return m.Run()
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
