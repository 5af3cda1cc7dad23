package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// asCommand runs pact-runner (this test binary as main: TestMain) with
// args, stdin and only the environment given, and returns its exit code
// and what it wrote on stderr.
func asCommand(t *testing.T, stdin string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	// GOCOVERDIR: a test binary built with -cover (make mutants) warns on
	// stderr without one.
	cmd.Env = append([]string{"PACT_RUNNER_AS_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"GOCOVERDIR=" + t.TempDir()}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.String()
	}
	require.NoError(t, err)
	return 0, stderr.String()
}

// The command's exit code is what its caller acts on: the guard's verdict
// as Claude Code's hook reads it (0 lets the command run, 2 refuses it
// with the reason on stderr), 0 for --help, and 1 with one line naming
// what is wrong for a configuration the runner cannot start with.
func TestTheCommandExitsAsItsCallerExpects(t *testing.T) {
	repo := t.TempDir()
	hook := func(command string) string {
		return fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"cwd":%q}`, command, repo)
	}
	code, stderr := asCommand(t, hook("git status"), nil, "guard", "--protected", "main")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	code, stderr = asCommand(t, hook("git push origin main"), nil, "guard", "--protected", "main")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "pact-runner guard refused this command")

	code, _ = asCommand(t, "", nil, "--help")
	require.Equal(t, 0, code)

	code, stderr = asCommand(t, "", nil)
	require.Equal(t, 1, code, stderr)
	require.True(t, strings.HasPrefix(stderr, "pact-runner: "), stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
}
