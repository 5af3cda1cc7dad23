package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The runner reads the ledger's Evidence lines by contract, and runs each
// package's tests inside the Go module that holds it.
func TestEvidenceBecomesOneSuitePerPackage(t *testing.T) {
	ev := parseEvidence(`## LOG-001 — one
Status: Current

Evidence: core/ledger/ledger_test.go TestA TestB; core/ledger/other_test.go TestC; sdk/errs/errs_test.go TestD

## ID-002 — two
Status: Current
Evidence: docs/docs_test.go TestE
`)
	require.Len(t, ev["LOG-001"], 3)
	require.Equal(t, []evidence{{Path: "docs/docs_test.go", Funcs: []string{"TestE"}}}, ev["ID-002"])

	dir := t.TempDir()
	for _, m := range []string{".", "sdk"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, m), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, m, "go.mod"), []byte("module x\n"), 0o644))
	}
	require.Equal(t, []suite{
		{Module: ".", Pkg: "./core/ledger", Funcs: []string{"TestA", "TestB", "TestC"}},
		{Module: "sdk", Pkg: "./errs", Funcs: []string{"TestD"}},
	}, suites(dir, ev["LOG-001"]))
}

// A patch's touched paths are put back as the source has them: changed
// files restored, files the patch added removed.
func TestRestorePutsTouchedPathsBack(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.go"), []byte("package a\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a // mutated\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.go"), []byte("package a\n"), 0o644))
	require.NoError(t, restore(src, dir, []string{"a.go", "new.go"}))
	got, err := os.ReadFile(filepath.Join(dir, "a.go"))
	require.NoError(t, err)
	require.Equal(t, "package a\n", string(got))
	_, err = os.Stat(filepath.Join(dir, "new.go"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// The test that killed a patch last time is tried alone first, but only
// while it is still on the patch's Evidence line.
func TestTheLastKillerIsTriedOnlyFromTheEvidence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "KILLERS")
	require.NoError(t, os.WriteFile(file, []byte("# comment\nLOG-001-1\t12\tcore/ledger\tTestB\nLOG-001-2\t3\tcore/ledger\tTestGone\n"), 0o644))
	last, err := readKillers(file)
	require.NoError(t, err)
	all := []suite{{Module: ".", Pkg: "./core/ledger", Funcs: []string{"TestA", "TestB"}}, {Module: "sdk", Pkg: "./errs", Funcs: []string{"TestD"}}}
	s, ok := last["LOG-001-1"].suite(all)
	require.True(t, ok)
	require.Equal(t, suite{Module: ".", Pkg: "./core/ledger", Funcs: []string{"TestB"}}, s)
	_, ok = last["LOG-001-2"].suite(all)
	require.False(t, ok, "a test no longer on the Evidence line is not tried")
	_, ok = last["LOG-001-3"].suite(all)
	require.False(t, ok)
	require.Equal(t, 12.0, estimate(job{Last: last["LOG-001-1"]}))

	require.NoError(t, os.WriteFile(file, []byte("LOG-001-1 12 core/ledger TestB\n"), 0o644))
	_, err = readKillers(file)
	require.ErrorContains(t, err, "tab-separated")
}

// A killer recorded as a subtest runs that subtest alone: each level of its
// name is matched whole, as go test splits a -run pattern at each "/", and
// a name's regexp characters match only themselves.
func TestAKillerSubtestRunsAlone(t *testing.T) {
	all := []suite{{Module: ".", Pkg: "./cmd/pact-board", Funcs: []string{"TestA", "TestB"}}}
	s, ok := killer{Pkg: "cmd/pact-board", Test: "TestB/mcp:pact_wait/agent-disabled/ends#01"}.suite(all)
	require.True(t, ok)
	require.Equal(t, suite{Module: ".", Pkg: "./cmd/pact-board", Funcs: []string{"TestB"}, Sub: "mcp:pact_wait/agent-disabled/ends#01"}, s)
	require.Equal(t, `^(TestB)$/^mcp:pact_wait$/^agent-disabled$/^ends#01$`, s.pattern())
	require.Equal(t, `^(TestA|TestB)$`, all[0].pattern())

	_, ok = killer{Pkg: "cmd/pact-board", Test: "TestGone/sub"}.suite(all)
	require.False(t, ok, "a subtest of a test no longer on the Evidence line is not tried")
	s, _ = killer{Pkg: "cmd/pact-board", Test: "TestA/a.b (c)"}.suite(all)
	require.Equal(t, `^(TestA)$/^a\.b \(c\)$`, s.pattern())
}

// A test binary that panics while an evidence test runs kills the
// mutation: the test started and never passed. One whose TestMain fails
// before any test runs is broken: it proves nothing about the contract.
func TestACrashDuringAnEvidenceTestKillsAndOneBeforeItIsBroken(t *testing.T) {
	s := suite{Pkg: "./testdata/crash", Funcs: []string{"TestWorkerRuns"}}
	outcome, detail, _, _, _ := runSuite(".", s, time.Minute, []string{"PROOFS_CRASH=goroutine"})
	require.Equal(t, "killed", outcome, detail)
	require.Contains(t, detail, "crashed during TestWorkerRuns: panic: runtime error: index out of range")
	outcome, detail, _, _, _ = runSuite(".", s, time.Minute, []string{"PROOFS_CRASH=main"})
	require.Equal(t, "broken", outcome, detail)
	require.Contains(t, detail, "no evidence test ran")
	outcome, detail, passed, _, _ := runSuite(".", s, time.Minute, []string{"PROOFS_CRASH="})
	require.Empty(t, outcome, detail)
	require.Equal(t, []string{"TestWorkerRuns"}, passed)
}
