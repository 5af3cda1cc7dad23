package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// modulePath is the root module's import path.
const modulePath = "github.com/pactboard/pact"

// populationPatterns are the packages with rules (docs/mutants.md): every
// module, the kernel's packages and the Runner.
var populationPatterns = []string{"./core/...", "./modules/...", "./cmd/pact-runner"}

// harnesses are the packages the patterns reach that hold no rule of the
// board's: the test harnesses and the helpers only tests import. Each says
// why; a package the patterns reach is mutated unless it is here.
func harnesses() map[string]string {
	return map[string]string{
		"core/archtest":               "the architecture tests; no code of the board's",
		"core/browsertest":            "test harness: drives headless Chromium for the console's journeys",
		"core/pgtest":                 "test harness: starts the tests' PostgreSQL clusters",
		"core/kernel/kerneltest":      "test harness: the kernel on real PostgreSQL for module tests",
		"core/auth/authtest":          "test helper: an in-process OpenID issuer",
		"core/i18n/i18ntest":          "test helper: checks catalogs in tests",
		"core/redact/redacttest":      "test helper: the redaction corpus",
		"core/logtest":                "test helper: a log sink tests read while servers write it",
		"modules/console/consoletest": "test helper: signs a person in to the console",
		"core/mcpserve/tsclient":      "test harness: the official TypeScript MCP client",
		"core/mcpserve/plaincall":     "test and load helper: one stateless MCP call; the board never imports it",
	}
}

// population lists the packages make mutants covers, relative to the root
// ("core/redact"), from go list over populationPatterns less harnesses.
func population(root string) ([]string, error) {
	all, err := listPackages(root, populationPatterns...)
	if err != nil {
		return nil, err
	}
	h := harnesses()
	var out []string
	for _, p := range all {
		if _, ok := h[p]; !ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// listPackages runs go list in root and returns the packages relative to it.
func listPackages(root string, patterns ...string) ([]string, error) {
	cmd := exec.Command("go", append([]string{"list"}, patterns...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		pkgs = append(pkgs, strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/"))
	}
	return pkgs, nil
}

// slice is a part of a package mutated in one gremlins run: its files,
// small enough that the run fits in about 30 minutes.
type slice struct {
	Pkg, Name string
	Files     []string // file names in Pkg; nil means every file no other slice of Pkg names
}

// readSlices reads docs/mutants.slices: a line per slice, the package,
// the slice's name and its files (space-separated, or * for every file the
// package's other slices do not name), tab-separated; # starts a comment.
// A package with no line is one slice, "all".
func readSlices(file string) ([]slice, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []slice
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: a line is package, slice and files, tab-separated", file, n)
		}
		s := slice{Pkg: fields[0], Name: fields[1]}
		if fields[2] != "*" {
			s.Files = strings.Fields(fields[2])
		}
		if slices.ContainsFunc(out, func(o slice) bool { return o.Pkg == s.Pkg && o.Name == s.Name }) {
			return nil, fmt.Errorf("%s:%d: %s has two slices named %s", file, n, s.Pkg, s.Name)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// slicesOf returns pkg's slices with every slice's files filled in from the
// package's non-test Go files in dir, checking that each file is in exactly
// one slice and that every file a slice names exists.
func slicesOf(all []slice, pkg string, files []string) ([]slice, error) {
	var mine []slice
	for _, s := range all {
		if s.Pkg == pkg {
			mine = append(mine, s)
		}
	}
	if len(mine) == 0 {
		return []slice{{Pkg: pkg, Name: "all", Files: files}}, nil
	}
	named := map[string]string{}
	rest := -1
	for i, s := range mine {
		if s.Files == nil {
			if rest >= 0 {
				return nil, fmt.Errorf("%s: two slices (%s, %s) take every file left", pkg, mine[rest].Name, s.Name)
			}
			rest = i
			continue
		}
		for _, f := range s.Files {
			if !slices.Contains(files, f) {
				return nil, fmt.Errorf("%s: slice %s names %s, which is no Go file of the package", pkg, s.Name, f)
			}
			if other, ok := named[f]; ok {
				return nil, fmt.Errorf("%s: %s is in slices %s and %s", pkg, f, other, s.Name)
			}
			named[f] = s.Name
		}
	}
	var left []string
	for _, f := range files {
		if _, ok := named[f]; !ok {
			left = append(left, f)
		}
	}
	switch {
	case rest >= 0:
		mine[rest].Files = left
	case len(left) > 0:
		return nil, fmt.Errorf("%s: %s in no slice: name them in a slice, or add one whose files are *", pkg, strings.Join(left, ", "))
	}
	return mine, nil
}

// goFiles lists the package's non-test Go files, by name.
func goFiles(root, pkg string) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if !strings.HasSuffix(m, "_test.go") {
			out = append(out, path.Base(filepath.ToSlash(m)))
		}
	}
	return out, nil
}
