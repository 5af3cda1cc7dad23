package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A patch's Go sites are its non-test Go files with the old file's lines
// it changes; a line only added counts as the line it comes before.
func TestAHandWrittenPatchsSitesAreItsChangedGoLines(t *testing.T) {
	patch := `diff --git a/core/x/x.go b/core/x/x.go
--- a/core/x/x.go
+++ b/core/x/x.go
@@ -10,4 +10,4 @@ func f() {
 	a := 1
-	if a > 0 {
+	if a >= 0 {
 		return
 	}
@@ -30,2 +30,3 @@ func g() {
 	b := 2
+	b++
 	return
diff --git a/core/x/x_test.go b/core/x/x_test.go
--- a/core/x/x_test.go
+++ b/core/x/x_test.go
@@ -1,1 +1,1 @@
-package x
+package y
diff --git a/migrations/001.sql b/migrations/001.sql
--- a/migrations/001.sql
+++ b/migrations/001.sql
@@ -1,1 +1,1 @@
-select 1;
+select 2;
`
	require.Equal(t, []site{{File: "core/x/x.go", Lines: []int{11, 31}, Added: map[int][]string{11: {"if a >= 0 {"}}}}, goSites([]byte(patch)))
}

// The draw takes, in the function a hand-written patch changes, the
// mutant least by sha256 of the contract's id and the mutant, never one on
// a changed line, one outside the function or one listed equivalent; the
// same tree and id draw the same mutant; the patch applies and says where
// it came from.
func TestADrawIsFixedAndChosenByNoOne(t *testing.T) {
	file := "cmd/pact-mutants/testdata/hand/hand.go"
	hand := []byte(`diff --git a/` + file + ` b/` + file + `
--- a/` + file + `
+++ b/` + file + `
@@ -9,1 +9,1 @@
-	case n < 0:
+	case n <= 0:
`)
	all := map[string][]mutant{"hand.go": {
		{9, 9, "CONDITIONALS_BOUNDARY"}, {9, 9, "CONDITIONALS_NEGATION"},
		{11, 9, "CONDITIONALS_NEGATION"},
		{18, 38, "CONDITIONALS_BOUNDARY"}, {18, 38, "CONDITIONALS_NEGATION"},
		{21, 42, "ARITHMETIC_BASE"},
	}}
	of := sources{
		mutants: func(pkg string) (map[string][]mutant, error) {
			require.Equal(t, "cmd/pact-mutants/testdata/hand", pkg)
			return all, nil
		},
		concats: func(pkg string) (map[string]bool, error) {
			return stringConcats(repoRoot, pkg, []string{"hand.go"})
		},
	}
	patch, why, err := drawOne(repoRoot, "LOG-001", [][]byte{hand}, nil, of)
	require.NoError(t, err)
	require.Empty(t, why)
	require.Contains(t, string(patch), "CONDITIONALS_NEGATION mutant at "+file+":11:9, the least by sha256 of 1 candidates in "+file+", func Sign.")
	require.Contains(t, string(patch), "-\tcase n == 0:\n+\tcase n != 0:\n")
	again, _, err := drawOne(repoRoot, "LOG-001", [][]byte{hand}, nil, of)
	require.NoError(t, err)
	require.Equal(t, patch, again)

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(file)), 0o755))
	src, err := os.ReadFile(filepath.Join(repoRoot, file))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, file), src, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.patch"), patch, 0o644))
	apply := exec.Command("git", "apply", "p.patch")
	apply.Dir = dir
	out, err := apply.CombinedOutput()
	require.NoError(t, err, "%s", out)

	// A patch of another line of Sign: its three mutants are candidates,
	// never those of Untested or Join, which are other code of the file;
	// the pick among them is the least by sha256 of the id, so other ids
	// draw others.
	other := []byte(strings.Replace(string(hand), "@@ -9,1 +9,1 @@\n-\tcase n < 0:\n+\tcase n <= 0:\n",
		"@@ -10,1 +10,1 @@\n-\t\treturn \"negative\"\n+\t\treturn \"minus\"\n", 1))
	picks := map[string]bool{}
	for i := range 20 {
		p, why, err := drawOne(repoRoot, fmt.Sprintf("LOG-%03d", i), [][]byte{other}, nil, of)
		require.NoError(t, err)
		require.Empty(t, why)
		require.Contains(t, string(p), "of 3 candidates in "+file+", func Sign.")
		first, _, _ := strings.Cut(string(p), "\n\n")
		require.NotContains(t, first, ":18:")
		require.NotContains(t, first, ":21:")
		picks[first[strings.Index(first, "v0.6.0's"):strings.Index(first, ", the least")]] = true
	}
	require.GreaterOrEqual(t, len(picks), 2, "the candidates are drawn for different ids")

	// Sign's one other mutant passed over: the function has no other, so
	// another mutation of the hand-written patch's line is drawn, never the
	// hand-written one itself (9:9 CONDITIONALS_BOUNDARY, < to <=).
	p, why, err := drawOne(repoRoot, "LOG-001", [][]byte{hand}, map[string]bool{file + ":11:9 CONDITIONALS_NEGATION": true}, of)
	require.NoError(t, err)
	require.Empty(t, why)
	require.Contains(t, string(p), "CONDITIONALS_NEGATION mutant at "+file+":9:9, the least by sha256 of 1 candidates in "+file+
		", func Sign, on the lines the hand-written patch changes (none else has a mutant).")
	_, why, err = drawOne(repoRoot, "LOG-001", [][]byte{hand}, map[string]bool{
		file + ":11:9 CONDITIONALS_NEGATION": true, file + ":9:9 CONDITIONALS_NEGATION": true}, of)
	require.NoError(t, err)
	require.Equal(t, "gremlins makes no mutant of the functions its hand-written mutations change (in "+file+") "+
		"but theirs and those passed over (docs/proofs/PASSED-OVER)", why)
	// Join's one mutant, - for its string +, does not compile.
	_, why, err = drawOne(repoRoot, "LOG-001", [][]byte{[]byte(strings.Replace(string(hand), "@@ -9,1 +9,1 @@\n-\tcase n < 0:\n+\tcase n <= 0:\n",
		"@@ -21,1 +21,1 @@\n-func Join(a, b string) string { return a + b }\n+func Join(a, b string) string { return b + a }\n", 1))}, nil, of)
	require.NoError(t, err)
	require.Equal(t, "gremlins makes no mutant of the functions its hand-written mutations change (in "+file+") but theirs", why)
	_, why, err = drawOne(repoRoot, "LOG-001", [][]byte{[]byte("diff --git a/m.sql b/m.sql\n--- a/m.sql\n+++ b/m.sql\n@@ -1 +1 @@\n-a\n+b\n")}, nil, of)
	require.NoError(t, err)
	require.Contains(t, why, "change no Go code")
}

// UNDRAWN keeps its comments and other lines, takes a contract with its
// reason, replaces a reason, and drops a contract drawn since.
func TestTheUndrawnListShrinksAndKeepsItsReasons(t *testing.T) {
	file := filepath.Join(t.TempDir(), "UNDRAWN")
	require.NoError(t, writeUndrawn(file, map[string]string{"LOG-002": "SQL only", "LOG-001": "no mutant"}))
	require.NoError(t, writeUndrawn(file, map[string]string{"LOG-001": "", "LOG-003": "no Go", "LOG-002": "still SQL only"}))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.True(t, strings.HasPrefix(lines[0], "#"))
	require.Equal(t, []string{"LOG-002\tstill SQL only", "LOG-003\tno Go"},
		slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "#") }))
}

// A contract listed in UNDRAWN by hand is never drawn.
func TestAContractUndrawnByHandIsLeftAlone(t *testing.T) {
	file := filepath.Join(t.TempDir(), "UNDRAWN")
	require.NoError(t, os.WriteFile(file, []byte("# c\nARCH-005\tby hand: structural\nLOG-001\tno mutant\n"), 0o644))
	got, err := undrawnByHand(file)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"ARCH-005": true}, got)
}
