// Package tsclient drives a PACT Board agent URL with the official MCP
// TypeScript SDK client (@modelcontextprotocol/sdk from npm, pinned by
// js/package-lock.json), for tests that prove the board works with a
// client nobody here wrote.
//
// It needs Node.js 20 or later with npm. Without them Run fails the test
// rather than skipping it, so make test cannot pass without the check. The
// pinned package is installed by npm ci into the user's cache dir, keyed by
// the lock file's hash, so node_modules never enters the source tree (where
// gofmt and go vet walk) and later runs skip the install.
package tsclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// js holds agent.mjs and the pinned npm package; embedded so callers in any
// directory find them.
//
//go:embed js/agent.mjs js/package.json js/package-lock.json
var js embed.FS

// Call is one tool call.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
}

// Result is one call's result as the TypeScript SDK returned it.
type Result struct {
	IsError           bool
	Content           []struct{ Type, Text string }
	StructuredContent map[string]any
}

// Output is what a run saw: the negotiated protocol version, the server's
// name and version, its instructions, the tool names (sorted) and each
// call's result, in order.
type Output struct {
	ProtocolVersion string
	Server          struct{ Name, Version string }
	Instructions    string
	Tools           []string
	Results         []Result
}

// Run connects to url with token as the bearer, makes calls in order on one
// session and returns what it saw; it fails t when the client cannot run.
func Run(t testing.TB, url, token string, calls ...Call) Output {
	t.Helper()
	dir := install(t)
	raw, err := json.Marshal(map[string]any{"url": url, "token": token, "calls": calls})
	if err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	file := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "agent.mjs", file)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tsclient: node agent.mjs: %v\n%s", err, stderr.String())
	}
	var out Output
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("tsclient: read the client's output: %v\n%s", err, stdout.String())
	}
	if len(out.Results) != len(calls) {
		t.Fatalf("tsclient: %d calls made, %d results", len(calls), len(out.Results))
	}
	return out
}

// install returns a directory holding js/ with its node_modules installed
// by npm ci, in the user's cache keyed by the lock file's hash.
func install(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: the TypeScript MCP client needs Node.js 20 or later with npm "+
				"(Debian/Ubuntu: apt-get install nodejs npm)", tool)
		}
	}
	lock, err := js.ReadFile("js/package-lock.json")
	if err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pact-mcp-tsclient", hex.EncodeToString(sum[:8]))
	if !installed(dir) {
		npmCI(t, dir)
	}
	script, err := js.ReadFile("js/agent.mjs")
	if err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.mjs"), script, 0o644); err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	return dir
}

func installed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	return err == nil
}

// npmCI installs into a fresh directory and renames it into place, so two
// test processes never share a half-installed tree.
func npmCI(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatalf("tsclient: %v", err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := js.ReadFile("js/" + name)
		if err != nil {
			t.Fatalf("tsclient: %v", err)
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatalf("tsclient: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsclient: npm ci in %s: %v\n%s", tmp, err, out)
	}
	if !installed(dir) {
		_ = os.RemoveAll(dir) // an incomplete tree left by hand
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(dir) {
		t.Fatalf("tsclient: install the client: %v", err)
	} // else another test process won the race; its install is as good
}
