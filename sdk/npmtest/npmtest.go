// Package npmtest installs a pinned Node package for tests that check the
// board against tools nobody here wrote (the official MCP TypeScript SDK,
// biscuit-wasm, OpenAPI linters, Standard Webhooks), so each such test
// installs the same way.
//
// Install needs Node.js 20 or later with npm; without them it fails the test
// rather than skipping it, so a suite cannot pass without the check. The
// package is installed by npm ci into the user's cache dir, keyed by its
// name and the lock file's hash, so node_modules never enters the source
// tree (where gofmt and go vet walk) and later runs skip the install.
package npmtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Install returns a directory holding the package whose package.json and
// package-lock.json are at the root of files, with its node_modules
// installed. name names the cache directory and the check in messages;
// marker is a path under node_modules that a complete install has, such as
// "@modelcontextprotocol/sdk/package.json".
func Install(t testing.TB, files fs.FS, name, marker string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: %s needs Node.js 20 or later with npm (Debian/Ubuntu: apt-get install nodejs npm)",
				tool, name)
		}
	}
	lock := read(t, files, "package-lock.json")
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
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(tmp, f), read(t, files, f), 0o644); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: npm ci in %s failed (it needs the npm registry): %v\n%s", name, tmp, err, out)
	}
	if !installed() {
		_ = os.RemoveAll(dir) // an incomplete tree left by hand
	}
	if err := os.Rename(tmp, dir); err != nil && !installed() {
		t.Fatalf("%s: install: %v", name, err)
	} // else another test process won the race; its install is as good
	return dir
}

// WriteScript writes body into dir under a name made from its hash and
// returns that name: test processes running at once never read a
// half-written or different script.
func WriteScript(t testing.TB, dir, stem string, body []byte) string {
	t.Helper()
	sum := sha256.Sum256(body)
	script := stem + "-" + hex.EncodeToString(sum[:8]) + ".mjs"
	if _, err := os.Stat(filepath.Join(dir, script)); err == nil {
		return script
	}
	f, err := os.CreateTemp(dir, stem+"-*.tmp")
	if err != nil {
		t.Fatalf("write %s: %v", stem, err)
	}
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, script))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		t.Fatalf("write %s: %v", stem, err)
	}
	return script
}

func read(t testing.TB, files fs.FS, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(files, name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return b
}
