package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// span is a block of Go's cover profile: from line.column to line.column,
// 1-based, columns in bytes (as gremlins reports a mutant's place).
type span struct{ FromLine, FromCol, ToLine, ToCol int }

// holds says whether line:column is inside s.
func (s span) holds(line, column int) bool {
	return (line > s.FromLine || line == s.FromLine && column >= s.FromCol) &&
		(line < s.ToLine || line == s.ToLine && column <= s.ToCol)
}

// spanTests is a block and the tests (indexes into coverage.Tests) that
// execute it.
type spanTests struct {
	Span  span  `json:"span"`
	Tests []int `json:"tests"`
}

// coverage is what each of a package's tests executes of the package's
// own files, each test run alone. A mutant can only be killed by a test
// that executes the code it changed, so each mutant need run only the
// tests that reach its statement: the same verdict as the whole suite's,
// in a fraction of the time.
type coverage struct {
	Key   string                 `json:"key"`   // of the tree it was measured on (treeKey)
	Tests []string               `json:"tests"` // -test.list's, fuzz targets included
	Took  []time.Duration        `json:"took"`  // each test's run alone, by index
	Files map[string][]spanTests `json:"files"` // file name → its executed blocks
}

// measureCoverage runs each of pkg's tests alone with coverage of pkg, or
// reads the measure of the same tree from work. Fuzz targets run their
// seed corpus, as go test does.
func measureCoverage(root, pkg, work string) (*coverage, error) {
	key, err := treeKey(root, pkg)
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(work, strings.ReplaceAll(pkg, "/", "_")+".coverage.json")
	if data, err := os.ReadFile(cache); err == nil {
		var c coverage
		if json.Unmarshal(data, &c) == nil && c.Key == key {
			return &c, nil
		}
	}
	bin := filepath.Join(work, strings.ReplaceAll(pkg, "/", "_")+".cover.test")
	_ = os.Remove(bin) // a binary left by an earlier run is not this package's tests
	build := exec.Command("go", "test", "-c", "-cover", "-covermode=set", "-coverpkg=./"+pkg, "-o", bin, "./"+pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c %s: %v: %s", pkg, err, out)
	}
	c := &coverage{Key: key, Files: map[string][]spanTests{}}
	if _, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) {
		// A package without test files: go test -c writes no binary, and
		// every mutant of the package is not covered.
		return c, nil
	}
	list := exec.Command(bin, "-test.list", ".*")
	list.Dir = filepath.Join(root, pkg)
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %w", bin, err)
	}
	blocks := map[string]map[span][]int{}
	for _, test := range strings.Fields(string(out)) {
		if strings.HasPrefix(test, "Benchmark") || strings.HasPrefix(test, "ok") {
			continue
		}
		profile := filepath.Join(work, strings.ReplaceAll(pkg, "/", "_")+".cover.out")
		run := exec.Command(bin, "-test.run", "^"+regexp.QuoteMeta(test)+"$", "-test.count=1", "-test.coverprofile="+profile)
		run.Dir = filepath.Join(root, pkg)
		var stderr bytes.Buffer
		run.Stdout, run.Stderr = &stderr, &stderr
		start := time.Now()
		if err := run.Run(); err != nil {
			return nil, fmt.Errorf("%s: %s fails unmutated, so no mutant's verdict would mean anything: %v: %s", pkg, test, err, tail(stderr.String()))
		}
		i := len(c.Tests)
		c.Tests, c.Took = append(c.Tests, test), append(c.Took, time.Since(start))
		spans, err := coveredSpans(profile, pkg)
		if err != nil {
			return nil, err
		}
		for file, ss := range spans {
			if blocks[file] == nil {
				blocks[file] = map[span][]int{}
			}
			for _, s := range ss {
				blocks[file][s] = append(blocks[file][s], i)
			}
		}
	}
	for file, bs := range blocks {
		for s, tests := range bs {
			c.Files[file] = append(c.Files[file], spanTests{s, tests})
		}
		slices.SortFunc(c.Files[file], func(a, b spanTests) int {
			return cmpSpan(a.Span, b.Span)
		})
	}
	if data, err := json.Marshal(c); err == nil {
		_ = os.WriteFile(cache, data, 0o644)
	}
	return c, nil
}

func cmpSpan(a, b span) int {
	for _, d := range []int{a.FromLine - b.FromLine, a.FromCol - b.FromCol, a.ToLine - b.ToLine, a.ToCol - b.ToCol} {
		if d != 0 {
			return d
		}
	}
	return 0
}

// coveredSpans reads a coverage profile and returns, for each file of pkg
// (not of a subpackage), its blocks that were executed.
func coveredSpans(profile, pkg string) (map[string][]span, error) {
	f, err := os.Open(profile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	prefix := path.Join(modulePath, pkg) + "/"
	out := map[string][]span{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// github.com/pactboard/pact/core/redact/redact.go:12.2,14.3 2 1
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, prefix) || strings.HasSuffix(rest, " 0") {
			continue
		}
		file := strings.TrimPrefix(name, prefix)
		if strings.Contains(file, "/") {
			continue
		}
		var s span
		var statements, count int
		if _, err := fmt.Sscanf(rest, "%d.%d,%d.%d %d %d", &s.FromLine, &s.FromCol, &s.ToLine, &s.ToCol, &statements, &count); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", profile, line, err)
		}
		out[file] = append(out[file], s)
	}
	return out, sc.Err()
}

// testsOf returns the names of the tests that execute any statement of
// files, in name order.
func (c *coverage) testsOf(files []string) []string {
	var tests []string
	for _, f := range files {
		for _, st := range c.Files[f] {
			for _, i := range st.Tests {
				if !slices.Contains(tests, c.Tests[i]) {
					tests = append(tests, c.Tests[i])
				}
			}
		}
	}
	slices.Sort(tests)
	return tests
}

// reach says which tests can kill a mutant at line:column of file: those
// that execute a block holding it ("statement"); where no executed block
// holds it (a switch case's expression has no block of its own), those
// that execute a block of the function around it, lines from to to
// ("function"); and where it is in no function, or no test executes its
// function, none (nil): it is then run against the whole suite.
func (c *coverage) reach(file string, line, column, from, to int, inFunc bool) (tests []int, by string) {
	add := func(ts []int) {
		for _, t := range ts {
			if !slices.Contains(tests, t) {
				tests = append(tests, t)
			}
		}
	}
	for _, st := range c.Files[file] {
		if st.Span.holds(line, column) {
			add(st.Tests)
		}
	}
	if len(tests) > 0 {
		slices.Sort(tests)
		return tests, "statement"
	}
	if !inFunc {
		return nil, "suite"
	}
	for _, st := range c.Files[file] {
		if st.Span.FromLine >= from && st.Span.ToLine <= to {
			add(st.Tests)
		}
	}
	if len(tests) == 0 {
		return nil, "suite"
	}
	slices.Sort(tests)
	return tests, "function"
}

// runPattern is the -test.run pattern of tests, or "" for none.
func runPattern(tests []string) string {
	if len(tests) == 0 {
		return ""
	}
	return "^(" + strings.Join(tests, "|") + ")$"
}

// treeKey names what a package's coverage and its mutants' verdicts were
// measured on: the Go version, pkg, and every file (Go, SQL, test data,
// embedded assets) under the repository's directories of the packages
// pkg's tests build from (go list -deps -test), that git would commit. A change there may change what
// a test executes or finds, so it measures again; a change elsewhere (the
// docs, another module) does not. A plugin a test builds from plugins/ is
// not among them: a change there alone keeps the measure.
func treeKey(root, pkg string) (string, error) {
	list := exec.Command("go", "list", "-deps", "-test", "-f", "{{.Dir}}", "./"+pkg)
	list.Dir = root
	var stderr bytes.Buffer
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("go list -deps %s: %v: %s", pkg, err, stderr.String())
	}
	var dirs []string
	for _, d := range strings.Fields(string(out)) {
		if rel, err := filepath.Rel(root, d); err == nil && !strings.HasPrefix(rel, "..") && !slices.Contains(dirs, rel) {
			dirs = append(dirs, rel)
		}
	}
	slices.Sort(dirs)
	ls := exec.Command("git", append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"}, dirs...)...)
	ls.Dir = root
	files, err := ls.Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", runtime.Version(), pkg)
	for _, rel := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}
