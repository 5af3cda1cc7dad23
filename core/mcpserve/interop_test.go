package mcpserve_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTypeScriptClientInterop connects the official TypeScript SDK client
// (interop/, pinned by its package-lock.json) to the server. Node and npm
// are required: without them the test fails rather than skips, so make
// test cannot pass without having run it.
func TestTypeScriptClientInterop(t *testing.T) {
	dir := installInterop(t)
	f := newFixture(t)

	var out struct {
		ProtocolVersion string
		Server          struct{ Name, Version string }
		Instructions    string
		Tools           []string
		Result          struct {
			IsError           bool
			Content           []struct{ Type, Text string }
			StructuredContent map[string]any
		}
	}
	runNode(t, dir, &out, f.url("code-web"), f.live, "test_echo", `{"x":3}`)
	t.Logf("TypeScript client negotiated %s", out.ProtocolVersion)
	require.NotEmpty(t, out.ProtocolVersion)
	require.Equal(t, "pact-board", out.Server.Name)
	require.NotEmpty(t, out.Instructions)
	require.Equal(t, f.Kernel.Tools().Names(), out.Tools)
	require.False(t, out.Result.IsError)
	require.Len(t, out.Result.Content, 1)
	require.Equal(t, "text", out.Result.Content[0].Type)
	require.Equal(t, "code-web", out.Result.StructuredContent["agent"])

	runNode(t, dir, &out, f.url("code-web"), f.live, "test_refuse", `{}`)
	require.True(t, out.Result.IsError)
	require.Equal(t, `{"error":"scope_exceeded","message":"mandate m-1 does not cover task.post:<web>","mandate_id":"m-1"}`,
		out.Result.Content[0].Text)
}

func runNode(t *testing.T, dir string, out any, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"client.mjs"}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "node client.mjs: %s", stderr.String())
	require.NoError(t, json.Unmarshal(stdout.Bytes(), out), stdout.String())
}

// installInterop returns a directory holding interop/ with its node_modules
// installed by npm ci. It lives in the user's cache, keyed by the lock
// file's hash, so node_modules never enters the source tree (where gofmt
// and go vet walk) and later runs skip the install.
func installInterop(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the MCP interop test needs Node.js 20 or later with npm "+
				"(Debian/Ubuntu: apt-get install nodejs npm)", tool)
		}
	}
	lock, err := os.ReadFile("interop/package-lock.json")
	require.NoError(t, err)
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pact-mcp-interop", hex.EncodeToString(sum[:8]))
	if !installed(dir) {
		npmCI(t, dir)
	}
	script, err := os.ReadFile("interop/client.mjs")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644))
	return dir
}

func installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
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
		b, err := os.ReadFile(filepath.Join("interop", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(tmp, name), b, 0o644))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", tmp, err, out)
	}
	if !installed(dir) {
		_ = os.RemoveAll(dir) // an incomplete tree left by hand
	}
	if err := os.Rename(tmp, dir); err != nil {
		if !installed(dir) {
			t.Fatal(fmt.Errorf("install the interop client: %w", err))
		} // another test process won the race; its install is as good
	}
}
