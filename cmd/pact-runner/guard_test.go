package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestThePushGuardRefusesPushesToProtectedBranchesAndForcePushes: every
// rule of the guard (docs/runner.md, "The push guard"), each way of naming
// a protected branch, and the commands it lets through (RUNNER-009).
func TestThePushGuardRefusesPushesToProtectedBranchesAndForcePushes(t *testing.T) {
	g := guard{protected: []string{"main", "release/*"}, current: func() string { return "main" }}
	onBranch := guard{protected: g.protected, current: func() string { return "fix-header" }}
	for _, tc := range []struct {
		g       guard
		command string
		refused string // a word of the reason, "" when it passes
	}{
		{g, "git push origin main", "protected branch main"},
		{g, "git push origin fix:main", "protected branch main"},
		{g, "git push origin HEAD:refs/heads/main", "protected branch main"},
		{g, "git push origin :main", "protected branch main"},
		{g, "git push origin release/2.0", "protected branch release/2.0"},
		{g, "git push", "current branch, main"},
		{g, "git push origin", "current branch, main"},
		{g, "git push origin HEAD", "current branch, main"},
		{g, "git push --all origin", "every branch"},
		{g, "git push --mirror origin", "every branch"},
		{onBranch, "git push --force origin fix-header", "force-pushes"},
		{onBranch, "git push -f origin fix-header", "force-pushes"},
		{onBranch, "git push -uf origin fix-header", "force-pushes"},
		{onBranch, "git push --force-with-lease origin fix-header", "force-pushes"},
		{onBranch, "git push origin +fix-header", "force-pushes"},
		{onBranch, "make test && git -C /repo push origin main", "protected branch main"},
		{onBranch, `echo ok; GIT_TRACE=1 git push "origin" 'main'`, "protected branch main"},
		{onBranch, "command git push origin main", "protected branch main"},
		{onBranch, "GIT_TRACE=1 exec /usr/bin/git push origin main", "protected branch main"},
		{onBranch, "git commit -m 'push to main' && git push origin fix-header", ""},
		{onBranch, "git push", ""},
		{onBranch, "git push -u origin fix-header", ""},
		{onBranch, "git log main", ""},
		{onBranch, "echo git push origin main", ""},
		{guard{protected: g.protected, allowForce: true, current: onBranch.current}, "git push --force origin fix-header", ""},
		{guard{protected: g.protected, allowForce: true, current: onBranch.current}, "git push --force origin main", "protected branch main"},
	} {
		t.Run(tc.command, func(t *testing.T) {
			why := tc.g.refuse(tc.command)
			if tc.refused == "" {
				require.Empty(t, why)
				return
			}
			require.Contains(t, why, tc.refused)
		})
	}
}

// TestTheGuardIsAPreToolUseHook: `pact-runner guard` reads the hook's JSON
// on stdin, blocks with exit 2 and its reason on stderr, passes other
// tools and harmless commands with exit 0, and reads the current branch of
// the hook's cwd.
func TestTheGuardIsAPreToolUseHook(t *testing.T) {
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	hook := func(tool, command string, args ...string) (int, string) {
		var stderr bytes.Buffer
		in := fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":%q,"tool_input":{"command":%q},"cwd":%q}`, tool, command, repo)
		code := runGuard(args, strings.NewReader(in), &stderr)
		return code, stderr.String()
	}
	code, msg := hook("Bash", "git push")
	require.Equal(t, 2, code)
	require.Contains(t, msg, "the current branch, main")
	require.Contains(t, msg, "open a pull request")
	code, _ = hook("Bash", "git push", "--protected", "release/*")
	require.Equal(t, 0, code, "main is not protected then")
	code, _ = hook("Bash", "git status")
	require.Equal(t, 0, code)
	code, _ = hook("Edit", "git push origin main")
	require.Equal(t, 0, code, "only Bash commands are judged")
	var stderr bytes.Buffer
	require.Equal(t, 2, runGuard(nil, strings.NewReader("not json"), &stderr), "an input it cannot read is refused")
}
