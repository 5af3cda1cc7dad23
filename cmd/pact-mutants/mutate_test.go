package main

import (
	"bytes"
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

// A mutant's run past its bound is timed out, and its process group is
// killed with it.
func TestAMutantPastItsBoundIsTimedOut(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hand.test")
	_, err := buildTests(".", "testdata/hand", bin, "")
	require.NoError(t, err)
	t.Setenv("PACT_MUTANTS_HANG", "1")
	start := time.Now()
	verdict, _ := runTests(".", "testdata/hand", bin, "", 500*time.Millisecond)
	require.Equal(t, "TIMED OUT", verdict)
	require.Less(t, time.Since(start), 20*time.Second, "the hung test binary was killed, not waited for")
}
