package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const repoRoot = "../.."

// The population is what go list finds under the patterns, less the named
// harnesses: every module and the Runner are in it, and a harness entry
// that names no package found there is stale and fails, so the list of
// what is left out cannot outlive the packages it excuses.
func TestThePopulationIsEveryPackageWithRules(t *testing.T) {
	all, err := listPackages(repoRoot, populationPatterns...)
	require.NoError(t, err)
	pop, err := population(repoRoot)
	require.NoError(t, err)
	for p, why := range harnesses() {
		require.Contains(t, all, p, "harness %q is no package under %v: remove it", p, populationPatterns)
		require.NotEmpty(t, strings.TrimSpace(why), "harness %s says why it is left out", p)
		require.NotContains(t, pop, p)
	}
	require.Len(t, pop, len(all)-len(harnesses()))
	modules, err := filepath.Glob(filepath.Join(repoRoot, "modules", "*", "module.go"))
	require.NoError(t, err)
	require.NotEmpty(t, modules)
	for _, m := range modules {
		require.Contains(t, pop, "modules/"+filepath.Base(filepath.Dir(m)))
	}
	require.Contains(t, pop, "cmd/pact-runner")
	require.Contains(t, pop, "core/ledger")
}

// Every package of the population divides into slices with each of its
// files in exactly one (docs/mutants.slices), and the file names no
// package outside the population.
func TestEveryFileOfThePopulationIsInOneSlice(t *testing.T) {
	defs, err := readSlices(filepath.Join(repoRoot, "docs", "mutants.slices"))
	require.NoError(t, err)
	pop, err := population(repoRoot)
	require.NoError(t, err)
	for _, d := range defs {
		require.Contains(t, pop, d.Pkg, "docs/mutants.slices names %s, which is not in the population", d.Pkg)
	}
	for _, p := range pop {
		files, err := goFiles(repoRoot, p)
		require.NoError(t, err)
		ss, err := slicesOf(defs, p, files)
		require.NoError(t, err)
		var got []string
		for _, s := range ss {
			got = append(got, s.Files...)
		}
		slices.Sort(got)
		require.Equal(t, files, got, "%s: each file in exactly one slice", p)
	}
}

func TestSlicesRefuseAFileTwiceOrNone(t *testing.T) {
	files := []string{"a.go", "b.go", "c.go"}
	defs := []slice{{Pkg: "p", Name: "one", Files: []string{"a.go"}}, {Pkg: "p", Name: "rest"}}
	ss, err := slicesOf(defs, "p", files)
	require.NoError(t, err)
	require.Equal(t, []string{"b.go", "c.go"}, ss[1].Files, "* takes what the others leave")
	ss, err = slicesOf(defs, "q", files)
	require.NoError(t, err)
	require.Equal(t, []slice{{Pkg: "q", Name: "all", Files: files}}, ss)

	_, err = slicesOf([]slice{{Pkg: "p", Name: "one", Files: []string{"a.go"}}}, "p", files)
	require.ErrorContains(t, err, "b.go, c.go in no slice")
	_, err = slicesOf([]slice{{Pkg: "p", Name: "one", Files: []string{"a.go"}}, {Pkg: "p", Name: "two", Files: []string{"a.go", "b.go", "c.go"}}}, "p", files)
	require.ErrorContains(t, err, "a.go is in slices one and two")
	_, err = slicesOf([]slice{{Pkg: "p", Name: "one", Files: []string{"gone.go"}}, {Pkg: "p", Name: "rest"}}, "p", files)
	require.ErrorContains(t, err, "gone.go, which is no Go file")

	file := filepath.Join(t.TempDir(), "slices")
	require.NoError(t, os.WriteFile(file, []byte("# c\np\tone\ta.go b.go\np\trest\t*\n"), 0o644))
	got, err := readSlices(file)
	require.NoError(t, err)
	require.Equal(t, []slice{{Pkg: "p", Name: "one", Files: []string{"a.go", "b.go"}}, {Pkg: "p", Name: "rest"}}, got)
	require.NoError(t, os.WriteFile(file, []byte("p one a.go\n"), 0o644))
	_, err = readSlices(file)
	require.ErrorContains(t, err, "tab-separated")
}

// A mutant runs the tests whose coverage reached its statement, else its
// function, else the whole suite; a slice is reached by its files' tests.
func TestASliceRunsTheTestsThatReachItsFiles(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "cover.out")
	require.NoError(t, os.WriteFile(profile, []byte(`mode: set
github.com/pactboard/pact/core/redact/redact.go:12.2,14.3 2 1
github.com/pactboard/pact/core/redact/redact.go:15.2,16.3 1 0
github.com/pactboard/pact/core/redact/scan.go:3.2,4.3 1 0
github.com/pactboard/pact/core/redact/corpus.go:3.2,4.3 1 1
github.com/pactboard/pact/core/redact/redacttest/t.go:3.2,4.3 1 1
github.com/pactboard/pact/core/redactor/x.go:3.2,4.3 1 1
`), 0o644))
	got, err := coveredSpans(profile, "core/redact")
	require.NoError(t, err)
	require.Equal(t, map[string][]span{"redact.go": {{12, 2, 14, 3}}, "corpus.go": {{3, 2, 4, 3}}}, got,
		"executed blocks of the package's own files only")

	cov := &coverage{Tests: []string{"TestA", "TestB", "FuzzC"}, Files: map[string][]spanTests{
		"a.go": {{span{3, 2, 5, 10}, []int{1, 0}}, {span{7, 2, 7, 20}, []int{2}}},
		"b.go": {{span{3, 2, 4, 3}, []int{0, 2}}}}}
	require.Equal(t, []string{"FuzzC", "TestA", "TestB"}, cov.testsOf([]string{"a.go", "b.go"}))
	require.Empty(t, cov.testsOf([]string{"c.go"}))
	for _, tt := range []struct {
		line, column int
		from, to     int
		inFunc       bool
		tests        []int
		by           string
	}{
		{4, 1, 1, 9, true, []int{0, 1}, "statement"},    // inside the first block
		{5, 10, 1, 9, true, []int{0, 1}, "statement"},   // its last column
		{5, 11, 1, 9, true, []int{0, 1, 2}, "function"}, // past it: the function's blocks
		{6, 1, 6, 6, true, nil, "suite"},                // a function no test executes
		{1, 1, 0, 0, false, nil, "suite"},               // in no function
	} {
		tests, by := cov.reach("a.go", tt.line, tt.column, tt.from, tt.to, tt.inFunc)
		require.Equal(t, tt.tests, tests, "%d:%d", tt.line, tt.column)
		require.Equal(t, tt.by, by, "%d:%d", tt.line, tt.column)
	}
	re := regexp.MustCompile(runPattern(cov.testsOf([]string{"b.go"})))
	require.True(t, re.MatchString("TestA"))
	require.False(t, re.MatchString("TestB"))
	require.Equal(t, "", runPattern(nil))
}

// docs/invariants.md's per-package mutation score has a row for each
// package of the population and none for another.
func TestTheMutationScoreHasARowPerPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "invariants.md"))
	require.NoError(t, err)
	text := string(data)
	start := strings.Index(text, "### Every package, every file")
	require.GreaterOrEqual(t, start, 0, "docs/invariants.md has the section \"Every package, every file\"")
	var rows []string
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	for _, line := range strings.Split(text[start:], "\n")[1:] {
		if strings.HasPrefix(line, "#") {
			break
		}
		if m := row.FindStringSubmatch(line); m != nil {
			rows = append(rows, m[1])
		}
	}
	pop, err := population(repoRoot)
	require.NoError(t, err)
	slices.Sort(rows)
	want := slices.Clone(pop)
	slices.Sort(want)
	require.Equal(t, want, rows, "a row per package of the population (pact-mutants -list), each once")
}

// The + and += that join strings, named string types included, are found
// at their operator; a + of numbers is not: gremlins' - for it compiles.
func TestStringConcatsAreFoundAtTheirOperator(t *testing.T) {
	got, err := stringConcats(".", "testdata/concat", []string{"concat.go"})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"concat.go:8:9": true, "concat.go:9:4": true, "concat.go:10:8": true}, got)
}

// A mutant gremlins reports killed where its - cannot compile is counted
// not viable, and the results file says so; other statuses are counted as
// gremlins gave them.
func TestAMutantThatCannotCompileIsCountedNotViable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"go_module":"x","files":[{"file_name":"concat.go","mutations":[
		{"type":"ARITHMETIC_BASE","status":"KILLED","line":8,"column":9},
		{"type":"ARITHMETIC_BASE","status":"KILLED","line":11,"column":14},
		{"type":"CONDITIONALS_NEGATION","status":"LIVED","line":8,"column":9}]}]}`), 0o644))
	var o outcome
	require.NoError(t, o.read(file, map[string]bool{"concat.go:8:9": true}))
	require.Equal(t, outcome{Killed: 1, Lived: 1, NotViable: 1}, o)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(data), `"status": "NOT VIABLE"`)
	require.Contains(t, string(data), `"go_module": "x"`)
}
