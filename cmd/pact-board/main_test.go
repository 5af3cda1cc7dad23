package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
)

func runWith(t *testing.T, args []string, vars map[string]string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, func(k string) string { return vars[k] }, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestHelpListsEveryVariable(t *testing.T) {
	code, stdout, stderr := runWith(t, []string{"--help"}, nil)
	require.Zero(t, code)
	require.Empty(t, stderr)
	require.Contains(t, stdout, "Usage: pact-board")
	require.Contains(t, stdout, "-demo")
	for _, v := range boot.Vars() {
		require.Contains(t, stdout, v.Name)
	}
}

func TestBadFlagsAndArguments(t *testing.T) {
	code, _, stderr := runWith(t, []string{"--nope"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "flag provided but not defined")

	code, _, stderr = runWith(t, []string{"serve"}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "pact-board: unexpected argument \"serve\" (see pact-board --help)\n", stderr)
}

func TestStartupErrorsAreOneLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		vars map[string]string
		want string
	}{
		{"BadPort", map[string]string{"PORT": "http"}, `pact-board: bad configuration: PORT: "http" is not a port number`},
		{"NoSigningKey", map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1:1/x"},
			"pact-board: PACT_SIGNING_KEY is required (at least 32 random characters) when DATABASE_URL is set"},
		{"ShortSigningKey", map[string]string{"PACT_SIGNING_KEY": "short", "PACT_DATA_DIR": t.TempDir()},
			"pact-board: PACT_SIGNING_KEY is too short"},
		{"BadSMTPURL", map[string]string{"PACT_SMTP_URL": "smtp://u:p@mail.example.com?tls=starttls"},
			"pact-board: bad configuration: PACT_SMTP_URL: from= must be the sender's email address"},
		{"BadBoardKeys", map[string]string{"PACT_BOARD_KEYS": "nokid", "DATABASE_URL": "postgres://x@127.0.0.1:1/x"},
			"pact-board: PACT_BOARD_KEYS entries look like kid=<base64url seed>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runWith(t, nil, tt.vars)
			require.Equal(t, 1, code)
			require.Empty(t, stdout)
			require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
			require.True(t, strings.HasPrefix(stderr, tt.want), stderr)
		})
	}
}

func TestOneLine(t *testing.T) {
	require.Equal(t, "start: exit 1 | initdb: bad | tail", oneLine("start: exit 1\ninitdb: bad\n\n  tail\n"))
}

// The compiled binary on a machine with no PostgreSQL server binaries and no
// DATABASE_URL: exit 1 and one line on stderr that says how to install them.
func TestBinaryWithoutPostgreSQL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pact-board")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + pathWithoutPostgres(),
		"PG_BIN=" + empty,
		"PACT_DATA_DIR=" + filepath.Join(dir, "data"),
		"HOME=" + dir,
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "want a non-zero exit, got %v", err)
	require.Equal(t, 1, exit.ExitCode())
	require.Empty(t, stdout.String())
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	require.Len(t, lines, 1, stderr.String())
	require.True(t, strings.HasPrefix(lines[0], "pact-board: "), lines[0])
	require.Contains(t, lines[0], "apt-get install postgresql")
	require.NotContains(t, stderr.String(), "goroutine", "no stack trace")
}

// pathWithoutPostgres is $PATH minus every directory holding a PostgreSQL
// server binary.
func pathWithoutPostgres() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		found := false
		for _, tool := range []string{"initdb", "pg_ctl", "postgres"} {
			if _, err := os.Stat(filepath.Join(d, tool)); err == nil {
				found = true
			}
		}
		if !found {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}
