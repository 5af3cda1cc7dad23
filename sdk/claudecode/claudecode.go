// Package claudecode runs the real Claude Code CLI in tests: the npm
// package @anthropic-ai/claude-code at the version pinned in
// npm/package-lock.json, installed once into the user's cache by
// sdk/npmtest (later runs reuse it), and an environment that keeps it
// offline and away from the user's own configuration.
//
// The package ships the CLI as a native executable in a per-platform
// optional dependency (@anthropic-ai/claude-code-linux-x64 and its
// siblings); Install returns that executable. No API key is needed for the
// subcommands that read or write configuration (claude --version,
// claude mcp list, claude plugin validate, claude plugin marketplace add,
// claude plugin install from a local marketplace).
//
// Use:
//
//	bin := claudecode.Install(t)
//	home := t.TempDir()
//	cmd := exec.Command(bin, "plugin", "validate", dir)
//	cmd.Env = claudecode.Env(t, home)
//	out, err := cmd.CombinedOutput()
//
// or Run(t, bin, home, dir, args...), which does the same and fails the
// test on a non-zero exit.
package claudecode

import (
	"context"
	"embed"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/npmtest"
)

//go:embed npm/package.json npm/package-lock.json
var npmFiles embed.FS

// Version is the Claude Code version the lock file pins.
const Version = "2.1.332"

// Install installs the pinned Claude Code (Node.js 20 or later with npm;
// without them the test fails, saying so) and returns the path of its
// executable.
func Install(t testing.TB) string {
	t.Helper()
	files, err := fs.Sub(npmFiles, "npm")
	if err != nil {
		t.Fatalf("claudecode: %v", err)
	}
	dir := npmtest.Install(t, files, "pact-claude-code", "@anthropic-ai/claude-code/package.json")
	mods := filepath.Join(dir, "node_modules", "@anthropic-ai")
	// The platform's native package holds the executable; the wrapper's
	// bin/claude.exe is a copy of it once its postinstall ran.
	native := filepath.Join(mods, "claude-code-"+platform(), "claude")
	if st, err := os.Stat(native); err == nil && st.Mode()&0o111 != 0 {
		return native
	}
	wrapper := filepath.Join(mods, "claude-code", "bin", "claude.exe")
	if st, err := os.Stat(wrapper); err == nil && st.Size() > 1<<20 {
		return wrapper
	}
	t.Fatalf("claudecode: no native Claude Code executable for %s in %s (its optional dependency "+
		"@anthropic-ai/claude-code-%s was not installed)", platform(), mods, platform())
	return ""
}

// platform is the suffix of the native package for this machine.
func platform() string {
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	p := runtime.GOOS + "-" + arch
	if runtime.GOOS == "linux" && musl() {
		p += "-musl"
	}
	return p
}

func musl() bool {
	matches, _ := filepath.Glob("/lib/ld-musl-*")
	return len(matches) > 0
}

// Env is an environment for the CLI with home as its HOME (and its
// configuration directory, ~/.claude, inside it), offline: no auto-update,
// no telemetry, no other non-essential traffic. It keeps PATH and the
// locale, and nothing else of the test's environment (no API key, no
// CLAUDE_* variable of the user's).
func Env(t testing.TB, home string) []string {
	t.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatalf("claudecode: %v", err)
	}
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"NO_COLOR=1",
		"TERM=dumb",
	}
	for _, k := range []string{"PATH", "LANG", "LC_ALL", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Run runs the CLI at bin with args in dir under Env(home), at most two
// minutes, and returns its combined output; a non-zero exit fails the
// test with that output.
func Run(t testing.TB, bin, home, dir string, args ...string) string {
	t.Helper()
	out, err := Try(t, bin, home, dir, args...)
	if err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Try is Run that returns the exit error instead of failing the test.
func Try(t testing.TB, bin, home, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, Env(t, home), nil
	out, err := cmd.CombinedOutput()
	return string(out), err
}
