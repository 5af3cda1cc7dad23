package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fixture is a small repository: package a (the evidence) imports b; c is
// imported by nobody; cmd/tool imports d; text/ holds a file a's test names
// and one nobody names.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                    "module x\n\ngo 1.24\n",
		"Makefile":                  "all:\n",
		"a/a.go":                    "package a\n\nimport _ \"x/b\"\n\nfunc A() int { return 1 }\n",
		"a/a_test.go":               "package a\n\nimport \"testing\"\n\nconst doc, deep, mk = \"notes.txt\", \"../text/deep.txt\", \"../Makefile\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal(\"A\")\n\t}\n}\n",
		"b/b.go":                    "package b\n",
		"b/b_test.go":               "package b\n",
		"b/testdata/in.txt":         "in\n",
		"c/c.go":                    "package c\n",
		"d/d.go":                    "package d\n",
		"cmd/tool/main.go":          "package main\n\nimport _ \"x/d\"\n\nfunc main() {}\n",
		"text/notes.txt":            "notes\n",
		"text/other.txt":            "other\n",
		"docs/invariants.md":        "## X-001 — a returns one\nStatus: Current\nEvidence: a/a_test.go TestA\n",
		"docs/proofs/X-001-1.patch": "--- a/a/a.go\n+++ b/a/a.go\n@@ -2,4 +2,4 @@\n \n import _ \"x/b\"\n \n-func A() int { return 1 }\n+func A() int { return 2 }\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return dir
}

func keyOf(t *testing.T, dir string, j job) string {
	t.Helper()
	files, err := sourceFiles(dir)
	require.NoError(t, err)
	tr, err := loadTree(dir, files, filepath.Join(dir, "no-vectors"))
	require.NoError(t, err)
	patch, err := os.ReadFile(filepath.Join(dir, "docs/proofs/X-001-1.patch"))
	require.NoError(t, err)
	return tr.key(j, patch, patchedPaths(patch))
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
}

// A patch's key changes with each kind of input its verdict can depend
// on, and with nothing else: each row changes one file of a fresh fixture.
func TestAKeyChangesWithItsInputsAndNothingElse(t *testing.T) {
	j := job{ID: "X-001", Name: "X-001-1", Evidence: []evidence{{Path: "a/a_test.go", Funcs: []string{"TestA"}}}}
	for _, c := range []struct {
		name, file, body string
		changes          bool
	}{
		{"the evidence package's code", "a/a.go", "package a\n\nimport _ \"x/b\"\n\nfunc A() int { return 1 } // edited\n", true},
		{"the evidence package's tests", "a/a_test.go", "package a\n\nimport \"testing\"\n\nconst doc, deep, mk = \"notes.txt\", \"../text/deep.txt\", \"../Makefile\"\n\nfunc TestA(t *testing.T) {}\n", true},
		{"a package its test binary links", "b/b.go", "package b // edited\n", true},
		{"that package's testdata", "b/testdata/in.txt", "edited\n", true},
		{"a file its tests name", "text/notes.txt", "edited\n", true},
		{"a file its tests name by a relative path", "text/deep.txt", "edited\n", true},
		{"a file its tests name by its very name", "Makefile", "all: edited\n", true},
		{"a global input", ".ci/run", "make proofs\n", true},
		{"a file of no extension nobody names", "Dockerfile", "FROM edited\n", false},
		{"the patch", "docs/proofs/X-001-1.patch", "--- a/a/a.go\n+++ b/a/a.go\n@@ -2,4 +2,4 @@\n \n import _ \"x/b\"\n \n-func A() int { return 1 }\n+func A() int { return 3 }\n", true},
		{"a linked package's tests, not in the binary", "b/b_test.go", "package b // edited\n", false},
		{"a package nobody links", "c/c.go", "package c // edited\n", false},
		{"a file nobody names", "text/other.txt", "edited\n", false},
		{"a command nobody builds", "d/d.go", "package d // edited\n", false},
		{"a new package nobody links", "e/e.go", "package e\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fixture(t)
			before := keyOf(t, dir, j)
			write(t, dir, c.file, c.body)
			after := keyOf(t, dir, j)
			if c.changes {
				require.NotEqual(t, before, after, "a change to %s must change the key", c.file)
			} else {
				require.Equal(t, before, after, "a change to %s must not change the key", c.file)
			}
		})
	}
	t.Run("the Evidence line as parsed", func(t *testing.T) {
		dir := fixture(t)
		other := j
		other.Evidence = []evidence{{Path: "a/a_test.go", Funcs: []string{"TestA", "TestB"}}}
		require.NotEqual(t, keyOf(t, dir, j), keyOf(t, dir, other))
	})
}

// Code that builds a command by its package path brings the command's
// packages into the key; code that reads Go source as data brings every
// .go file; code that lists the tracked files brings every file.
func TestAKeyFollowsWhatItsCodeBuildsAndReads(t *testing.T) {
	j := job{ID: "X-001", Name: "X-001-1", Evidence: []evidence{{Path: "a/a_test.go", Funcs: []string{"TestA"}}}}
	for _, c := range []struct {
		name, literals, file string
	}{
		{"go build of a command", `var _ = []string{"build", "./cmd/tool"}`, "d/d.go"},
		{"Go source read as data", `var _ = ".go"`, "c/c.go"},
		{"the tracked files listed", `var _ = "ls-files"`, "text/other.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fixture(t)
			before := keyOf(t, dir, j)
			write(t, dir, c.file, "package edited // "+c.name+"\n")
			require.Equal(t, before, keyOf(t, dir, j), "before the literal, %s is no input", c.file)
			write(t, dir, "a/lits_test.go", "package a\n\n"+c.literals+"\n")
			before = keyOf(t, dir, j)
			write(t, dir, c.file, "package edited // again\n")
			require.NotEqual(t, before, keyOf(t, dir, j), "with %s, %s is an input", c.literals, c.file)
		})
	}
}

// A patch killed once is kept while its key holds, one in -audit of the
// kept runs anyway, and a change to its inputs runs it again: end to end,
// with the runner's own scratch copies and go test.
func TestAKillIsKeptWhileItsInputsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: runs go test on a fixture three times (-short)")
	}
	dir := fixture(t)
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(os.TempDir(), "pact-proofs", fmt.Sprintf("%x", hash(dir)))) })
	runOnce := func(o options) (string, killer) {
		var out strings.Builder
		require.NoError(t, run(dir, o, &out))
		k, err := readKillers(filepath.Join(dir, "docs/proofs/KILLERS"))
		require.NoError(t, err)
		return out.String(), k["X-001-1"]
	}
	o := options{workers: 1, timeout: 2 * time.Minute}
	out, k := runOnce(o)
	require.Contains(t, out, "0 of 1 patches kept")
	require.Contains(t, out, "1 patches, 1 killed (0 of them kept")
	require.NotEmpty(t, k.Key, "a kill is written with its key")
	require.Equal(t, "TestA", k.Test)

	out, again := runOnce(o)
	require.Contains(t, out, "1 of 1 patches kept")
	require.Contains(t, out, "1 killed (1 of them kept, not run)")
	require.Equal(t, k, again, "a kept kill's line is left as it was")

	audit := o
	audit.audit = 1 // every kept kill is audited
	out, _ = runOnce(audit)
	require.Contains(t, out, "0 of 1 patches kept")
	fresh := o
	fresh.fresh = true
	out, _ = runOnce(fresh)
	require.Contains(t, out, "0 of 1 patches kept")

	write(t, dir, "b/b.go", "package b // edited\n")
	out, k2 := runOnce(o)
	require.Contains(t, out, "0 of 1 patches kept", "a changed input runs the patch again")
	require.NotEqual(t, k.Key, k2.Key)
}
