package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// interopDir holds verify.mjs and the pinned npm package (package-lock.json).
const interopDir = "testdata/interop"

type interopCase struct {
	authCase
	Token string   `json:"token"`
	IDs   []string `json:"ids"`
}

// TestInteropBiscuitWasm has the official @biscuit-auth/biscuit-wasm verify
// and authorize tokens this plugin mints, at chain depth 1, 2 and 4: a valid
// call passes; an over-limit argument, another project, an expired token, an
// unconstrained argument and each revoked id fail. Revocation ids and the
// root key id must agree with Go's. Node and npm are required: without them
// the test fails rather than skips, so make test cannot pass without it.
func TestInteropBiscuitWasm(t *testing.T) {
	dir := installInterop(t)
	_, pub := testKey("board")
	var cases []interopCase
	for _, n := range []int{1, 2, 4} {
		r, _ := exportReq(t, n)
		e, err := New().Export(t.Context(), r)
		require.NoError(t, err)
		var ids []string
		for _, l := range r.Chain {
			ids = append(ids, e.LinkIDs[l.ID][0])
		}
		for _, c := range authCases(ids) {
			if n == 1 && (c.Name == "over-limit argument" || c.Name == "valid read") {
				continue
			}
			c.Name = fmt.Sprintf("depth %d: %s", n, c.Name)
			cases = append(cases, interopCase{authCase: c, Token: e.Credential, IDs: ids})
		}
	}
	input := map[string]any{"public_key_hex": hex.EncodeToString(pub), "root_key_id": RootKeyID(pub), "cases": cases}
	raw, err := json.Marshal(input)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "cases.json")
	require.NoError(t, os.WriteFile(file, raw, 0o600))

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "verify.mjs", file)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("verify.mjs:\n%s", out)
	require.NoError(t, err, "biscuit-wasm disagrees with this plugin:\n%s", out)
	passed := 0
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "ok ") {
			passed++
		}
	}
	require.Equal(t, len(cases), passed, "every case was checked")
}

// installInterop returns a directory holding verify.mjs and the pinned
// biscuit-wasm, installed by npm ci. It lives in the user's cache, keyed by
// the lock file's hash, so node_modules never enters the source tree (where
// gofmt and go vet walk) and later runs skip the install.
func installInterop(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the Biscuit interop test needs Node.js 20 or later with npm "+
				"to run the official @biscuit-auth/biscuit-wasm verifier (Debian/Ubuntu: apt-get install nodejs npm)", tool)
		}
	}
	lock, err := os.ReadFile(filepath.Join(interopDir, "package-lock.json"))
	require.NoError(t, err)
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pact-biscuit-interop", hex.EncodeToString(sum[:8]))
	if !installed(dir) {
		npmCI(t, dir)
	}
	script, err := os.ReadFile(filepath.Join(interopDir, "verify.mjs"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "verify.mjs"), script, 0o644))
	return dir
}

func installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@biscuit-auth", "biscuit-wasm", "package.json"))
	return err == nil
}

// npmCI installs into a fresh directory and renames it into place, so two
// test processes never share a half-installed tree.
func npmCI(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(interopDir, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(tmp, name), b, 0o644))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s failed (it needs the npm registry): %v\n%s", tmp, err, out)
	}
	if !installed(dir) {
		_ = os.RemoveAll(dir) // an incomplete tree left by hand
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(dir) {
		t.Fatalf("install the biscuit-wasm verifier: %v", err)
	} // else another test process won the race; its install is as good
}
