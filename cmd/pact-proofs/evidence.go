package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// suite is the evidence in one package: its Go module and test names.
type suite struct {
	Module string // directory holding go.mod, relative to the root
	Pkg    string // the package, relative to Module ("./core/ledger")
	Funcs  []string
	Sub    string // with one test in Funcs, only its subtest of this name ("sub/leaf") runs
}

// pattern is the suite's -run argument: its tests by their whole names,
// and with Sub, each level of the subtest's name matched whole, as go
// test matches a pattern level by level at each "/".
func (s suite) pattern() string {
	re := "^(" + strings.Join(s.Funcs, "|") + ")$"
	if s.Sub == "" || len(s.Funcs) != 1 {
		return re
	}
	for _, level := range strings.Split(s.Sub, "/") {
		re += "/^" + regexp.QuoteMeta(level) + "$"
	}
	return re
}

// suites groups evidence by package, in the order the Evidence line names
// them but with the commands' packages (./cmd/...) last, with the Go module
// each belongs to (the root module, sdk/, the examples), since go test runs
// inside one module. A command's tests build its whole binary and run it
// end to end: where a package's own test kills the mutation first, they
// need not be built (the verdict is the same in any order).
func suites(dir string, ev []evidence) []suite {
	var out []suite
	for _, e := range ev {
		mod := filepath.Dir(e.Path)
		for mod != "." {
			if _, err := os.Stat(filepath.Join(dir, mod, "go.mod")); err == nil {
				break
			}
			mod = filepath.Dir(mod)
		}
		rel, _ := filepath.Rel(mod, filepath.Dir(e.Path))
		pkg := "./" + filepath.ToSlash(rel)
		i := slices.IndexFunc(out, func(s suite) bool { return s.Module == mod && s.Pkg == pkg })
		if i < 0 {
			out = append(out, suite{Module: mod, Pkg: pkg})
			i = len(out) - 1
		}
		for _, f := range e.Funcs {
			if !slices.Contains(out[i].Funcs, f) {
				out[i].Funcs = append(out[i].Funcs, f)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b suite) int { return cmp.Compare(isCommand(a), isCommand(b)) })
	return out
}

// event is a line of `go test -json`.
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
	Elapsed    float64
}

// evidenceRun runs the evidence tests in dir and says what became of the
// mutation there.
func evidenceRun(dir string, ev []evidence, last killer, timeout time.Duration, extraEnv []string) (string, string, []suiteRun) {
	var passed, skipped []string
	var runs []suiteRun
	all := suites(dir, ev)
	// The evidence test that killed this patch last time, alone, first:
	// when it fails again nothing else need be built or run. It is one of
	// the Evidence line's tests, so the verdict is the one the whole line
	// would give; when it passes now, the whole line runs.
	if s, ok := last.suite(all); ok {
		outcome, detail, _, _, sr := runSuite(dir, s, timeout, extraEnv)
		runs = append(runs, sr)
		if outcome != "" {
			return outcome, detail, runs
		}
	}
	// One package at a time, stopping at the first that fails: one failing
	// evidence test kills the mutation, and the packages after it need not
	// be built.
	for _, s := range all {
		outcome, detail, p, sk, sr := runSuite(dir, s, timeout, extraEnv)
		runs = append(runs, sr)
		if outcome != "" {
			return outcome, detail, runs
		}
		passed, skipped = append(passed, p...), append(skipped, sk...)
	}
	switch {
	case len(passed)+len(skipped) == 0:
		return "broken", "no evidence test ran", runs
	case len(passed) == 0:
		// The evidence could not run here (its inputs are missing, as make
		// test says when it skips them): no verdict, reported, not failed.
		return "skipped", "every evidence test skipped: " + strings.Join(skipped, " "), runs
	default:
		return "survived", "every evidence test passed", runs
	}
}

// runSuite runs one package's evidence tests. It returns the outcome when
// they decide it (killed, broken), else "" and the tests that passed and
// were skipped.
func runSuite(dir string, s suite, timeout time.Duration, extraEnv []string) (outcome, detail string, passed, skipped []string, sr suiteRun) {
	re := s.pattern()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	args := []string{"test", "-json", "-count=1", "-failfast", "-vet=off", "-ldflags=-w", "-timeout", timeout.String(), "-run", re}
	if slices.ContainsFunc(s.Funcs, func(f string) bool { return strings.HasPrefix(f, "Benchmark") }) {
		args = append(args, "-bench", re, "-benchtime", "1x")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, s.Pkg)...)
	cmd.Dir = filepath.Join(dir, s.Module)
	// The scratch repository has no commit to stamp binaries with. With
	// -trimpath no build depends on the scratch copy's path, so the workers
	// share what either compiled (and a run shares an earlier one's, when a
	// package, mutated or not, is the same), the binaries the tests build
	// included, since they read GOFLAGS too.
	cmd.Env = append(goEnv(), extraEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	began := time.Now()
	out, _ := cmd.Output()
	sr = suiteRun{Pkg: path.Join(s.Module, s.Pkg), Wall: time.Since(began), Tests: map[string]float64{}}
	if st := cmd.ProcessState; st != nil {
		sr.CPU = st.UserTime() + st.SystemTime()
	}
	if ctx.Err() == context.DeadlineExceeded {
		return "killed", fmt.Sprintf("%s timed out after %s (a hang counts as a failure)", s.Pkg, timeout), nil, nil, sr
	}
	var failed, buildFail, tail, started []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action == "start" && e.Test == "" && sr.Build == 0 {
			sr.Build = e.Time.Sub(began)
		}
		if e.Test != "" && !strings.Contains(e.Test, "/") && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			sr.Tests[e.Test] = e.Elapsed
		}
		if strings.Contains(e.Test, "/") {
			// A subtest ends before its parents do, so the first to fail is
			// the innermost of the first failing branch.
			switch {
			case e.Action == "fail" && sr.FailedSub == "":
				sr.FailedSub = e.Test
			case e.Action == "pass":
				sr.PassedSubs = append(sr.PassedSubs, e.Test)
			}
		}
		switch {
		case e.Action == "build-output" && len(tail) < 5:
			tail = append(tail, strings.TrimSpace(e.Output))
		case e.Action == "build-fail":
			buildFail = append(buildFail, e.ImportPath)
		case e.Action == "output" && strings.HasPrefix(e.Output, "panic: test timed out"):
			return "killed", fmt.Sprintf("%s timed out after %s (a hang counts as a failure)", s.Pkg, timeout), nil, nil, sr
		case e.Test != "" && !strings.Contains(e.Test, "/"):
			switch e.Action {
			case "run":
				started = append(started, e.Test)
			case "fail":
				failed = append(failed, e.Test)
			case "pass":
				passed = append(passed, e.Test)
			case "skip":
				skipped = append(skipped, e.Test)
			}
		case e.Test == "" && e.Action == "output" && strings.Contains(e.Output, "[setup failed]"):
			buildFail = append(buildFail, e.Package)
		}
	}
	switch {
	case len(buildFail) > 0:
		return "broken", "does not compile: " + strings.Join(buildFail, ", ") + ": " + oneLine(strings.Join(tail, " ")), nil, nil, sr
	case len(failed) > 0:
		return "killed", "failed: " + strings.Join(failed, " "), nil, nil, sr
	case cmd.ProcessState != nil && !cmd.ProcessState.Success() && len(unfinished(started, passed, skipped)) > 0:
		// An evidence test started and the binary ended before it did: a
		// panic (in the test or in a goroutine of the code it runs). The
		// test did not pass; unlike a TestMain that fails, it ran.
		crashed := unfinished(started, passed, skipped)
		return "killed", "crashed during " + strings.Join(crashed, " ") + ": " + oneLine(lastLines(string(out), stderr.String())), nil, nil, sr
	case cmd.ProcessState != nil && !cmd.ProcessState.Success() && len(passed)+len(skipped) == 0:
		// Nothing ran (TestMain failed, or go test could not start): a
		// mutation that breaks everything proves nothing about its contract.
		return "broken", s.Pkg + ": no evidence test ran: " + oneLine(stderr.String()+" "+string(out)), nil, nil, sr
	case cmd.ProcessState != nil && !cmd.ProcessState.Success():
		return "killed", s.Pkg + ": the test binary failed after its evidence tests passed", nil, nil, sr
	}
	return "", "", passed, skipped, sr
}

// goEnv is the environment of every go command the run starts, so that
// they share one another's builds: the scratch repository has no commit to
// stamp binaries with, and with -trimpath no build depends on the scratch
// copy's path.
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS=-buildvcs=false -trimpath")
}

// warm compiles the unmutated tree's packages once, before the workers
// start: each would otherwise compile the same packages at its first patch,
// at the same time, since neither finds the other's in the build cache
// until it is done.
func warm(dir string) error {
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	cmd.Env = goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./... of the unmutated tree: %v: %s", err, oneLine(string(out)))
	}
	return nil
}

// writeTimings writes what each patch's packages took, as JSON, for
// finding where the time goes (-timings).
func writeTimings(file string, all []result) error {
	type suiteOut struct {
		Pkg              string
		Wall, Build, CPU float64
		Tests            map[string]float64
	}
	type out struct {
		Patch, Outcome, Detail string
		Seconds, CPU           float64
		Suites                 []suiteOut
	}
	var rows []out
	for _, r := range all {
		o := out{Patch: r.Name, Outcome: r.Outcome, Detail: r.Detail, Seconds: r.Took.Seconds(), CPU: r.cpu().Seconds()}
		for _, s := range r.Suites {
			o.Suites = append(o.Suites, suiteOut{Pkg: s.Pkg, Wall: s.Wall.Seconds(), Build: s.Build.Seconds(), CPU: s.CPU.Seconds(), Tests: s.Tests})
		}
		rows = append(rows, o)
	}
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// unfinished are the tests of started that neither passed nor skipped.
func unfinished(started, passed, skipped []string) []string {
	var out []string
	for _, t := range started {
		if !slices.Contains(passed, t) && !slices.Contains(skipped, t) {
			out = append(out, t)
		}
	}
	return out
}

// lastLines finds the panic's first line in go test -json's output, or the
// end of stderr.
func lastLines(jsonOut, stderr string) string {
	sc := bufio.NewScanner(strings.NewReader(jsonOut))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Action == "output" && strings.HasPrefix(e.Output, "panic: ") {
			return strings.TrimSpace(e.Output)
		}
	}
	if len(stderr) > 300 {
		stderr = stderr[len(stderr)-300:]
	}
	return stderr
}
