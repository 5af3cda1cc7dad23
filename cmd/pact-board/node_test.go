package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const lintTimeout = 2 * time.Minute

// installNodePackage returns a directory holding the Node package in src
// (package.json and package-lock.json) with its node_modules installed by
// npm ci. It lives in the user's cache, keyed by the lock file's hash, so
// node_modules never enters the source tree (where gofmt and go vet walk)
// and later runs skip the install. marker is a file under node_modules that
// a complete install has.
func installNodePackage(t *testing.T, src, name, marker string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: %s needs Node.js 20.19 or later with npm "+
				"(Debian/Ubuntu: apt-get install nodejs npm)", tool, name)
		}
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	require.NoError(t, err)
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, name, hex.EncodeToString(sum[:8]))
	installed := func() bool {
		_, err := os.Stat(filepath.Join(dir, "node_modules", marker))
		return err == nil
	}
	if installed() {
		return dir
	}
	// Install into a fresh directory and rename it into place, so two test
	// processes never share a half-installed tree.
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(tmp, f), b, 0o644))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", tmp, err, out)
	}
	if !installed() {
		_ = os.RemoveAll(dir) // an incomplete tree left by hand
	}
	if err := os.Rename(tmp, dir); err != nil && !installed() {
		t.Fatal(fmt.Errorf("install %s: %w", name, err))
	} // else another test process won the race; its install is as good
	return dir
}

// nodeCommand runs a script of an installed package with node, from dir.
func nodeCommand(ctx context.Context, dir, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Dir = dir
	// Redocly asks the network for nothing with telemetry and update checks off.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	return cmd
}
