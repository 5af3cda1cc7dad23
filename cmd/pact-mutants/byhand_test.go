package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Each mutant type turns the token at its position into what gremlins'
// table says, and nothing else of the file; a position on another token,
// or on none, is refused rather than guessed.
func TestAMutantIsTheTokenGremlinsWouldWrite(t *testing.T) {
	src := []byte("package p\n\nfunc f(a, b int) bool {\n\ta++\n\tb -= -a\n\treturn a < b && a%b == 0\n}\n")
	for _, tt := range []struct {
		line, column int
		kind, want   string
	}{
		{4, 3, "INCREMENT_DECREMENT", "\ta--\n"},
		{5, 4, "INVERT_ASSIGNMENTS", "\tb += -a\n"},
		{5, 4, "REMOVE_SELF_ASSIGNMENTS", "\tb = -a\n"},
		{5, 7, "INVERT_NEGATIVES", "\tb -= +a\n"},
		{6, 11, "CONDITIONALS_BOUNDARY", "\treturn a <= b && a%b == 0\n"},
		{6, 11, "CONDITIONALS_NEGATION", "\treturn a >= b && a%b == 0\n"},
		{6, 15, "INVERT_LOGICAL", "\treturn a < b || a%b == 0\n"},
		{6, 19, "ARITHMETIC_BASE", "\treturn a < b && a*b == 0\n"},
		{6, 22, "CONDITIONALS_NEGATION", "\treturn a < b && a%b != 0\n"},
	} {
		got, err := mutate(src, tt.line, tt.column, tt.kind)
		require.NoError(t, err, "%d:%d %s", tt.line, tt.column, tt.kind)
		lines := bytes.SplitAfter(src, []byte("\n"))
		lines[tt.line-1] = []byte(tt.want)
		require.Equal(t, string(bytes.Join(lines, nil)), string(got), "%d:%d %s", tt.line, tt.column, tt.kind)
	}
	_, err := mutate(src, 6, 12, "CONDITIONALS_BOUNDARY")
	require.ErrorContains(t, err, "no token at 6:12")
	_, err = mutate(src, 6, 15, "CONDITIONALS_BOUNDARY")
	require.ErrorContains(t, err, "6:15 is &&, which CONDITIONALS_BOUNDARY does not mutate")
	_, err = mutate(src, 6, 15, "SWAP_EVERYTHING")
	require.ErrorContains(t, err, "SWAP_EVERYTHING is not one gremlins v0.6.0 makes")
}

// The mutants gremlins calls not covered are run against the whole suite:
// a switch case a test reaches is killed, a function none reaches lives, a
// - for a string + does not compile; each verdict is marked by hand, the
// other statuses stay as gremlins gave them, and the tree is unchanged.
func TestNotCoveredMutantsAreRunByHand(t *testing.T) {
	pkg := "testdata/hand"
	before, err := os.ReadFile(filepath.Join(pkg, "hand.go"))
	require.NoError(t, err)
	results := filepath.Join(t.TempDir(), "out.json")
	require.NoError(t, os.WriteFile(results, []byte(`{"files":[{"file_name":"hand.go","mutations":[
		{"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":9,"column":9},
		{"type":"CONDITIONALS_NEGATION","status":"NOT COVERED","line":11,"column":9},
		{"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":18,"column":38},
		{"type":"ARITHMETIC_BASE","status":"NOT COVERED","line":21,"column":42},
		{"type":"CONDITIONALS_NEGATION","status":"LIVED","line":18,"column":38}]}]}`), 0o644))
	var log bytes.Buffer
	ran, err := byHand(".", pkg, results, t.TempDir(), 4, &log)
	require.NoError(t, err)
	require.Equal(t, 4, ran, log.String())
	var o outcome
	require.NoError(t, o.read(results, nil))
	require.Equal(t, outcome{Killed: 2, Lived: 2, NotViable: 1, ByHand: 4}, o, log.String())
	require.Contains(t, log.String(), "hand.go:9:9 CONDITIONALS_BOUNDARY: KILLED")
	require.Contains(t, log.String(), "hand.go:18:38 CONDITIONALS_BOUNDARY: LIVED")
	require.Contains(t, log.String(), "hand.go:21:42 ARITHMETIC_BASE: NOT VIABLE")
	after, err := os.ReadFile(filepath.Join(pkg, "hand.go"))
	require.NoError(t, err)
	require.Equal(t, before, after, "mutants go through -overlay: the tree is never written")
}

// A mutant's run past its bound is timed out, and its process group is
// killed with it.
func TestAMutantPastItsBoundIsTimedOut(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hand.test")
	_, err := buildTests(".", "testdata/hand", bin, "")
	require.NoError(t, err)
	t.Setenv("PACT_MUTANTS_HANG", "1")
	start := time.Now()
	verdict, _ := runTests(".", "testdata/hand", bin, 500*time.Millisecond)
	require.Equal(t, "TIMED OUT", verdict)
	require.Less(t, time.Since(start), 20*time.Second, "the hung test binary was killed, not waited for")
}
