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
	"time"
)

// killer is the evidence test that killed a patch in the run that wrote
// docs/proofs/KILLERS, and how long that patch took then. Test is a
// top-level test's name, or its failing subtest's full name
// ("TestA/sub/leaf") where that subtest was shown to pass alone on the
// unmutated tree (narrowed, below).
type killer struct {
	Pkg, Test string // the package's path from the root ("cmd/pact-board"), the test
	Seconds   float64
	Key       string // the key of the inputs the kill was made with (inputs.go); empty when none
}

// suite returns the one-test suite of k when k's test is still on the
// Evidence line, in the suite of its package, narrowed to its subtest when
// k names one.
func (k killer) suite(all []suite) (suite, bool) {
	top, sub, _ := strings.Cut(k.Test, "/")
	if top == "" {
		return suite{}, false
	}
	for _, s := range all {
		if path.Join(s.Module, s.Pkg) == k.Pkg && slices.Contains(s.Funcs, top) {
			return suite{Module: s.Module, Pkg: s.Pkg, Funcs: []string{top}, Sub: sub}, true
		}
	}
	return suite{}, false
}

// readKillers reads docs/proofs/KILLERS: a line per patch, its name, its
// seconds, the package and the test that killed it, and the key of the
// inputs it was killed with, tab-separated; # starts a comment. A missing
// file is no hints.
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
		if len(f) == 4 {
			f = append(f, "") // written before keys were
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("%s: %q: a line is patch, seconds, package, test and key, tab-separated", file, line)
		}
		var secs float64
		if _, err := fmt.Sscanf(f[1], "%g", &secs); err != nil {
			return nil, fmt.Errorf("%s: %q: %v", file, line, err)
		}
		out[f[0]] = killer{Pkg: f[2], Test: f[3], Seconds: secs, Key: f[4]}
	}
	return out, nil
}

// writeKillers rewrites docs/proofs/KILLERS with this run's results,
// keeping the lines of patches it did not run that still exist. A patch
// killed now gets the key it was killed with; with record, or without a
// line before, also the test that killed it and its seconds. A patch not
// killed now loses its key, so that it is run next time. A recording run
// drops the lines of the patches it ran and did not kill.
func writeKillers(file string, last map[string]killer, all []result, record bool) error {
	now := maps.Clone(last)
	for _, r := range all {
		if r.Kept {
			continue
		}
		k, had := now[r.Name]
		if r.Outcome != "killed" {
			k.Key = ""
			if record || !had {
				delete(now, r.Name)
			} else {
				now[r.Name] = k
			}
			continue
		}
		if record || !had || k.Test == "" {
			if test, pkg, secs, ok := killedBy(r); ok {
				k = killer{Pkg: pkg, Test: test, Seconds: secs}
			} else if record {
				delete(now, r.Name)
				continue
			}
		}
		k.Key = r.Key
		now[r.Name] = k
	}
	dir := filepath.Dir(file)
	var b strings.Builder
	b.WriteString("# Written by make proofs (docs/proofs/README.md): each patch, its seconds, the evidence test that\n")
	b.WriteString("# killed it, which the next run tries first, and the longest patches first (RECORD=1 rewrites\n")
	b.WriteString("# these three), and the key of the inputs it was killed with: an equal key keeps the kill.\n")
	for _, name := range slices.Sorted(maps.Keys(now)) {
		if _, err := os.Stat(filepath.Join(dir, name+".patch")); err != nil {
			continue
		}
		k := now[name]
		fmt.Fprintf(&b, "%s\t%.0f\t%s\t%s\t%s\n", name, k.Seconds, k.Pkg, k.Test, k.Key)
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// killedBy is the quickest of the tests that failed in r's last package,
// narrowed to its subtest where that was shown to pass alone; false for a
// timeout or a binary failing after its tests: no one test to name.
func killedBy(r result) (test, pkg string, secs float64, ok bool) {
	if len(r.Suites) == 0 {
		return "", "", 0, false
	}
	s := r.Suites[len(r.Suites)-1]
	if failed, found := strings.CutPrefix(r.Detail, "failed: "); found {
		for _, t := range strings.Fields(failed) {
			if took, ran := s.Tests[t]; ran && (test == "" || took < s.Tests[test]) {
				test = t
			}
		}
	}
	if test == "" {
		return "", "", 0, false
	}
	secs = r.Took.Seconds()
	if r.Narrowed != nil && strings.HasPrefix(r.Narrowed.Test, test+"/") {
		test, secs = r.Narrowed.Test, r.Narrowed.Seconds
	}
	return test, s.Pkg, secs, true
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

// narrow returns the subtest that killed r, to be tried alone first next
// time, when running that subtest alone on the unmutated tree (dir, which
// try has restored) passes: so a subtest that fails alone for want of
// what its siblings set up is never recorded, and a kill by it is a kill
// by the whole test. nil when r was not killed by a subtest, or when the
// subtest does not pass alone.
func narrow(dir string, r result, timeout time.Duration) *killer {
	if r.Outcome != "killed" || len(r.Suites) == 0 {
		return nil
	}
	last := r.Suites[len(r.Suites)-1]
	top, sub, ok := strings.Cut(last.FailedSub, "/")
	if !ok {
		return nil
	}
	i := slices.IndexFunc(suites(dir, r.Evidence), func(s suite) bool { return path.Join(s.Module, s.Pkg) == last.Pkg })
	if i < 0 {
		return nil
	}
	s := suites(dir, r.Evidence)[i]
	s.Funcs, s.Sub = []string{top}, sub
	outcome, _, passed, _, sr := runSuite(dir, s, timeout, r.Env)
	if outcome != "" || !slices.Contains(passed, top) || !slices.Contains(sr.PassedSubs, last.FailedSub) {
		return nil
	}
	return &killer{Pkg: last.Pkg, Test: last.FailedSub, Seconds: last.Build.Seconds() + (sr.Wall - sr.Build).Seconds()}
}
