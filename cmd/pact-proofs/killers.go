package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// killer is the evidence test that killed a patch in the run that wrote
// docs/proofs/KILLERS, and how long that patch took then.
type killer struct {
	Pkg, Test string // the package's path from the root ("cmd/pact-board"), the test
	Seconds   float64
}

// suite returns the one-test suite of k when k's test is still on the
// Evidence line, in the suite of its package.
func (k killer) suite(all []suite) (suite, bool) {
	if k.Test == "" {
		return suite{}, false
	}
	for _, s := range all {
		if path.Join(s.Module, s.Pkg) == k.Pkg && slices.Contains(s.Funcs, k.Test) {
			return suite{Module: s.Module, Pkg: s.Pkg, Funcs: []string{k.Test}}, true
		}
	}
	return suite{}, false
}

// readKillers reads docs/proofs/KILLERS: a line per patch, its name, its
// seconds, the package and the test that killed it, tab-separated; #
// starts a comment. A missing file is no hints.
func readKillers(file string) (map[string]killer, error) {
	out := map[string]killer{}
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("%s: %q: a line is patch, seconds, package and test, tab-separated", file, line)
		}
		var secs float64
		if _, err := fmt.Sscanf(f[1], "%g", &secs); err != nil {
			return nil, fmt.Errorf("%s: %q: %v", file, line, err)
		}
		out[f[0]] = killer{Pkg: f[2], Test: f[3], Seconds: secs}
	}
	return out, nil
}

// writeKillers rewrites docs/proofs/KILLERS with this run's killed
// patches, keeping the lines of patches it did not run that still exist.
func writeKillers(file string, last map[string]killer, all []result) error {
	now := maps.Clone(last)
	for _, r := range all {
		delete(now, r.Name)
		if r.Outcome != "killed" || len(r.Suites) == 0 {
			continue
		}
		s := r.Suites[len(r.Suites)-1]
		// Of the tests that failed, the quickest.
		test := ""
		if failed, ok := strings.CutPrefix(r.Detail, "failed: "); ok {
			for _, t := range strings.Fields(failed) {
				if secs, ran := s.Tests[t]; ran && (test == "" || secs < s.Tests[test]) {
					test = t
				}
			}
		}
		if test == "" {
			continue // a timeout or a binary failing after its tests: no one test to name
		}
		now[r.Name] = killer{Pkg: s.Pkg, Test: test, Seconds: r.Took.Seconds()}
	}
	dir := filepath.Dir(file)
	var b strings.Builder
	b.WriteString("# Written by make proofs RECORD=1 (docs/proofs/README.md): each patch, its seconds, and the\n")
	b.WriteString("# evidence test that killed it, which the next run tries first, and the longest patches first.\n")
	for _, name := range slices.Sorted(maps.Keys(now)) {
		if _, err := os.Stat(filepath.Join(dir, name+".patch")); err != nil {
			continue
		}
		k := now[name]
		fmt.Fprintf(&b, "%s\t%.0f\t%s\t%s\n", name, k.Seconds, k.Pkg, k.Test)
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// estimate is how long a job is expected to run: its seconds last time,
// else a guess from where its evidence is.
func estimate(j job) float64 {
	if j.Last.Seconds > 0 {
		return j.Last.Seconds
	}
	return []float64{8, 15, 20}[weight(j)]
}

// weight guesses how long a job runs: 2 when all its evidence is in
// commands' packages, 1 when some is, else 0.
func weight(j job) int {
	n := 0
	for _, e := range j.Evidence {
		if strings.HasPrefix(e.Path, "cmd/") {
			n++
		}
	}
	switch {
	case n == 0:
		return 0
	case n == len(j.Evidence):
		return 2
	}
	return 1
}

// isCommand is 1 for a suite in a command's package, else 0.
func isCommand(s suite) int {
	if strings.HasPrefix(s.Pkg, "./cmd/") {
		return 1
	}
	return 0
}
