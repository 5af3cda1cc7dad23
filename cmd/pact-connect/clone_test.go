package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// gitRepo makes a repository with one commit, served as a bare clone at a
// file:// URL (the real git, as a person's would be).
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH (make install-deps installs it): --repo <git URL> cannot be tested")
	}
	dir := t.TempDir()
	src, bare := filepath.Join(dir, "web"), filepath.Join(dir, "web.git")
	git := func(args ...string) {
		t.Helper()
		out, err := exec.Command("git", args...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	git("init", "-q", src)
	require.NoError(t, os.WriteFile(filepath.Join(src, "README.md"), []byte("# web\n"), 0o644))
	git("-C", src, "add", ".")
	git("-C", src, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
	git("clone", "-q", "--bare", src, bare)
	return "file://" + bare
}

// runnerCode hires a runner in web and returns its setup code.
func runnerCode(t *testing.T, b *realBoard, id string) string {
	got := b.Admin("ana", "PUT", "/roles/nightly", `{"name": "Nightly", "client": "runner", "actions": ["task.read", "task.work"]}`)
	require.Equal(t, 200, got.Status, got.Raw)
	return b.hire(t, `{"role": "nightly", "project": "web", "id": "`+id+`"}`)
}

// --repo with a git URL clones it, into ~/pact/<name> or --dir, before the
// code is spent, and records the clone as PACT_RUNNER_REPO.
func TestRunnerRepoURLIsClonedAndRecorded(t *testing.T) {
	url := gitRepo(t)
	b, m := newRealBoard(t), newMachine(t)
	rc, out, errOut := m.connect(b.URL, runnerCode(t, b, "runner-web"), "--repo", url)
	require.Equal(t, 0, rc, errOut)
	clone := filepath.Join(m.home, "pact", "web")
	require.FileExists(t, filepath.Join(clone, "README.md"))
	require.Contains(t, out, "cloned "+url+" into "+clone)
	require.Equal(t, clone, readEnv(t, filepath.Join(m.home, ".config", "pact", "runner-web.env"))["PACT_RUNNER_REPO"])

	// Into --dir; connecting again over the same clone uses it as it is.
	into := filepath.Join(t.TempDir(), "work")
	for range 2 {
		code := b.Admin("ana", "POST", "/agents/runner-web/setup-code", "").Body["code"].(string)
		rc, _, errOut = m.connect(b.URL, code, "--repo", url, "--dir", into)
		require.Equal(t, 0, rc, errOut)
		require.FileExists(t, filepath.Join(into, "README.md"))
		require.Equal(t, into, readEnv(t, filepath.Join(m.home, ".config", "pact", "runner-web.env"))["PACT_RUNNER_REPO"])
	}
}

// A clone that fails refuses before the code is spent: the same code then
// connects; a dry run clones nothing and says what it would clone.
func TestRunnerRepoCloneFailsBeforeTheCodeIsSpent(t *testing.T) {
	url := gitRepo(t)
	b, m := newRealBoard(t), newMachine(t)
	code := runnerCode(t, b, "runner-web")
	rc, _, errOut := m.connect(b.URL, code, "--repo", url+"-missing")
	require.Equal(t, 1, rc)
	require.Contains(t, errOut, "cannot clone "+url+"-missing")
	require.Contains(t, errOut, "the setup code is still good")

	occupied := filepath.Join(t.TempDir(), "occupied")
	require.NoError(t, os.MkdirAll(occupied, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(occupied, "notes.txt"), []byte("mine"), 0o644))
	rc, _, errOut = m.connect(b.URL, code, "--repo", url, "--dir", occupied)
	require.Equal(t, 1, rc)
	require.Contains(t, errOut, "is not empty and not a clone of")
	require.FileExists(t, filepath.Join(occupied, "notes.txt"), "nothing of the person's is touched")

	rc, out, errOut := m.connect(b.URL, code, "--repo", url, "--dry-run")
	require.Equal(t, 0, rc, errOut)
	require.Contains(t, out, "would clone "+url+" into "+filepath.Join(m.home, "pact", "web"))
	require.NoDirExists(t, filepath.Join(m.home, "pact", "web"))
}
