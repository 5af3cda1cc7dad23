package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// testsByFile runs each of pkg's tests alone with coverage of pkg and
// returns, for each of the package's files, the tests that execute some
// statement of it. A mutant can only be killed by a test that executes
// the code it changed, so a slice's mutants need run only the tests of its
// files: the same verdicts as the whole suite, in a fraction of the time.
// Fuzz targets run their seed corpus, as go test does.
func testsByFile(root, pkg, work string) (map[string][]string, error) {
	bin := filepath.Join(work, strings.ReplaceAll(pkg, "/", "_")+".cover.test")
	_ = os.Remove(bin) // a binary left by an earlier run is not this package's tests
	build := exec.Command("go", "test", "-c", "-cover", "-covermode=set", "-coverpkg=./"+pkg, "-o", bin, "./"+pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c %s: %v: %s", pkg, err, out)
	}
	if _, err := os.Stat(bin); errors.Is(err, fs.ErrNotExist) {
		// A package without test files: go test -c writes no binary, and
		// every mutant of the package is not covered.
		return map[string][]string{}, nil
	}
	list := exec.Command(bin, "-test.list", ".*")
	list.Dir = filepath.Join(root, pkg)
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %w", bin, err)
	}
	byFile := map[string][]string{}
	for _, test := range strings.Fields(string(out)) {
		if strings.HasPrefix(test, "Benchmark") || strings.HasPrefix(test, "ok") {
			continue
		}
		// A profile per package: two packages' runs may measure at once.
		profile := filepath.Join(work, strings.ReplaceAll(pkg, "/", "_")+".cover.out")
		run := exec.Command(bin, "-test.run", "^"+regexp.QuoteMeta(test)+"$", "-test.count=1", "-test.coverprofile="+profile)
		run.Dir = filepath.Join(root, pkg)
		var stderr bytes.Buffer
		run.Stdout, run.Stderr = &stderr, &stderr
		if err := run.Run(); err != nil {
			return nil, fmt.Errorf("%s: %s fails unmutated, so no mutant's verdict would mean anything: %v: %s", pkg, test, err, tail(stderr.String()))
		}
		files, err := coveredFiles(profile, pkg)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			byFile[f] = append(byFile[f], test)
		}
	}
	return byFile, nil
}

// coveredFiles reads a coverage profile and returns the files of pkg with
// a statement executed.
func coveredFiles(profile, pkg string) ([]string, error) {
	f, err := os.Open(profile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	prefix := path.Join(modulePath, pkg) + "/"
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// github.com/pactboard/pact/core/redact/redact.go:12.2,14.3 2 1
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, prefix) || strings.HasSuffix(rest, " 0") {
			continue
		}
		file := strings.TrimPrefix(name, prefix)
		if !strings.Contains(file, "/") && !slices.Contains(out, file) {
			out = append(out, file)
		}
	}
	return out, sc.Err()
}

// testsFor is the -run pattern of the tests that execute any of files, or
// "" when none does (every mutant there is not covered).
func testsFor(byFile map[string][]string, files []string) string {
	var tests []string
	for _, f := range files {
		for _, t := range byFile[f] {
			if !slices.Contains(tests, t) {
				tests = append(tests, t)
			}
		}
	}
	if len(tests) == 0 {
		return ""
	}
	slices.Sort(tests)
	return "^(" + strings.Join(tests, "|") + ")$"
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}
