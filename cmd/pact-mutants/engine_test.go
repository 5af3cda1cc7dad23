package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Each mutant runs against the tests that reach it: those that execute its
// statement; for a switch case's expression, which has no block of its
// own, those that execute its function; for a function no test executes,
// the whole suite, marked by hand. A - for a string + is not viable
// without a compile. The verdicts are the suite's, the results file says
// how each mutant's tests were found, and the tree is unchanged.
func TestEachMutantRunsTheTestsThatReachIt(t *testing.T) {
	root, pkg := "../..", "cmd/pact-mutants/testdata/hand"
	before, err := os.ReadFile("testdata/hand/hand.go")
	require.NoError(t, err)
	work := t.TempDir()
	cov, err := measureCoverage(root, pkg, work)
	require.NoError(t, err)
	require.Equal(t, []string{"TestSign", "TestDouble", "TestHangs"}, cov.Tests)
	require.Equal(t, []string{"TestDouble", "TestSign"}, cov.testsOf([]string{"hand.go"}), "TestHangs executes nothing of the package")

	muts := map[string][]mutant{"hand.go": {
		{24, 35, "ARITHMETIC_BASE"},
		{9, 9, "CONDITIONALS_BOUNDARY"},
		{11, 9, "CONDITIONALS_NEGATION"},
		{18, 38, "CONDITIONALS_BOUNDARY"},
		{21, 42, "ARITHMETIC_BASE"},
	}}
	out := filepath.Join(work, "out.json")
	var log bytes.Buffer
	s := slice{Pkg: pkg, Name: "all", Files: []string{"hand.go"}}
	o := runSlice(root, s, muts, cov, map[string]bool{"hand.go:21:42": true}, out, work, time.Minute, 4, &log)
	require.Empty(t, o.Err, log.String())
	require.Equal(t, 3, o.Killed, log.String())
	require.Equal(t, 1, o.Lived, log.String())
	require.Equal(t, 1, o.NotViable, log.String())
	require.Equal(t, 1, o.ByHand, log.String())

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var r results
	require.NoError(t, json.Unmarshal(data, &r))
	require.Len(t, r.Files, 1)
	got := map[int]result{}
	for _, m := range r.Files[0].Mutations {
		got[m.Line] = m
	}
	require.Equal(t, result{Type: "ARITHMETIC_BASE", Status: "KILLED", Line: 24, Column: 35, ReachedBy: "statement", Tests: 1},
		withoutSeconds(got[24]), "TestDouble alone")
	require.Equal(t, result{Type: "CONDITIONALS_BOUNDARY", Status: "KILLED", Line: 9, Column: 9, ReachedBy: "function", Tests: 1},
		withoutSeconds(got[9]), "TestSign, which executes Sign")
	require.Equal(t, "KILLED", got[11].Status)
	require.Equal(t, result{Type: "CONDITIONALS_BOUNDARY", Status: "LIVED", Line: 18, Column: 38, ByHand: true, ReachedBy: "suite"},
		withoutSeconds(got[18]), "no test executes Untested: the whole suite runs, and it lives")
	require.Equal(t, result{Type: "ARITHMETIC_BASE", Status: "NOT VIABLE", Line: 21, Column: 42, ReachedBy: "none"}, withoutSeconds(got[21]))
	require.Contains(t, log.String(), "hand.go:24:35 ARITHMETIC_BASE: KILLED (1 tests by statement")

	after, err := os.ReadFile("testdata/hand/hand.go")
	require.NoError(t, err)
	require.Equal(t, before, after, "mutants go through -overlay: the tree is never written")

	// The same tree is measured once.
	again, err := measureCoverage(root, pkg, work)
	require.NoError(t, err)
	require.Equal(t, cov, again)
}

func withoutTook(o outcome) outcome {
	o.Took, o.Err = 0, ""
	return o
}

func withoutSeconds(r result) result {
	r.Seconds = 0
	return r
}

// A slice past its bound stops: the mutants it did not reach are written
// skipped, and the outcome says why (here, before the first). A run of the
// same tree takes up from there.
func TestASlicePastItsBoundSkipsTheRest(t *testing.T) {
	root, pkg := "../..", "cmd/pact-mutants/testdata/hand"
	work := t.TempDir()
	cov, err := measureCoverage(root, pkg, work)
	require.NoError(t, err)
	muts := map[string][]mutant{"hand.go": {{24, 35, "ARITHMETIC_BASE"}, {9, 9, "CONDITIONALS_BOUNDARY"}}}
	out := filepath.Join(work, "out.json")
	o := runSlice(root, slice{Pkg: pkg, Name: "all", Files: []string{"hand.go"}}, muts, cov, nil, out, work, time.Nanosecond, 4, &bytes.Buffer{})
	require.Equal(t, "ran past its bound of 1ns", o.Err)
	require.Equal(t, outcome{Pkg: pkg, Slice: "all", Skipped: 2}, withoutTook(o))
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, 2, bytes.Count(data, []byte(`"status": "SKIPPED"`)))

	// Run again on the same tree, it runs what was skipped; a third time,
	// nothing: every verdict is kept. On another tree, all run again.
	var log bytes.Buffer
	o = runSlice(root, slice{Pkg: pkg, Name: "all", Files: []string{"hand.go"}}, muts, cov, nil, out, work, time.Minute, 4, &log)
	require.Equal(t, outcome{Pkg: pkg, Slice: "all", Killed: 2}, withoutTook(o), log.String())
	require.NotContains(t, log.String(), "kept")
	log.Reset()
	o = runSlice(root, slice{Pkg: pkg, Name: "all", Files: []string{"hand.go"}}, muts, cov, nil, out, work, time.Minute, 4, &log)
	require.Equal(t, outcome{Pkg: pkg, Slice: "all", Killed: 2}, withoutTook(o))
	require.Equal(t, "   2 verdicts kept from the last run of this tree\n", log.String())
	log.Reset()
	other := *cov
	other.Key = "another tree"
	o = runSlice(root, slice{Pkg: pkg, Name: "all", Files: []string{"hand.go"}}, muts, &other, nil, out, work, time.Minute, 4, &log)
	require.Equal(t, outcome{Pkg: pkg, Slice: "all", Killed: 2}, withoutTook(o))
	require.Contains(t, log.String(), "hand.go:24:35 ARITHMETIC_BASE: KILLED")
}
