// Command pact-proofs checks that every contract's proof can fail
// (docs/proofs/README.md). For each mutation docs/proofs/<ID>-<n>.patch it
// applies the patch to a scratch copy of the repository, runs only the
// tests on that contract's Evidence line in docs/invariants.md, and
// records the outcome:
//
//   - killed: an evidence test failed, as it must;
//   - survived: every evidence test passed with the guarantee broken;
//   - broken: the patch did not apply, did not compile, or ran no
//     evidence test.
//
// It prints a table of contract, patch, outcome and seconds, and exits 1
// unless every patch was killed. `make proofs` runs it.
//
//	pact-proofs [-only LOG-001,ID-002] [-workers 2] [-timeout 5m] [-record] [-timings FILE]
//
// Each worker keeps one scratch copy at a fixed path under the temporary
// directory, and builds with -trimpath, so the Go build cache (keyed by
// content) makes every build after the first incremental, across workers,
// patches and runs. A patch first runs alone the evidence test that killed
// it last time (docs/proofs/KILLERS), and the patches start longest first by
// their seconds there. Then, or when that test passes, the evidence runs one
// package at a time with -failfast and stops at the first package that
// fails: one failing test is all a kill needs. Two runs on one repository
// at once would share those copies; run one at a time.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

func main() {
	only := flag.String("only", "", "comma-separated contract ids (LOG-001) or patch names (LOG-001-1); empty runs every patch")
	workers := flag.Int("workers", 2, "patches run at once, each in its own scratch copy")
	timeout := flag.Duration("timeout", 5*time.Minute, "bound on one patch's test run")
	root := flag.String("root", ".", "the repository root")
	timings := flag.String("timings", "", "a file to write each patch's per-package and per-test times to, as JSON")
	record := flag.Bool("record", false, "run each patch's evidence in the Evidence line's order, no test first, and rewrite docs/proofs/KILLERS with the test that killed it and its seconds")
	flag.Parse()
	if err := run(*root, *only, *workers, *timeout, *timings, *record, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pact-proofs:", err)
		os.Exit(1)
	}
}

// evidence is one "file Test Test" item of an Evidence line.
type evidence struct {
	Path  string
	Funcs []string
}

var (
	headingRe  = regexp.MustCompile(`^## ([A-Z]+-[0-9]{3}) — (.+)$`)
	evidenceRe = regexp.MustCompile(`^Evidence: (.+)$`)
	patchRe    = regexp.MustCompile(`^([A-Z]+-[0-9]{3})-([0-9]+)\.patch$`)
)

// parseEvidence reads the Evidence lines of the ledger, by contract id.
// docs/docs_test.go checks the ledger's syntax; this reads what it checked.
func parseEvidence(text string) map[string][]evidence {
	out := map[string][]evidence{}
	id := ""
	for _, line := range strings.Split(text, "\n") {
		if m := headingRe.FindStringSubmatch(line); m != nil {
			id = m[1]
			continue
		}
		m := evidenceRe.FindStringSubmatch(line)
		if m == nil || id == "" {
			continue
		}
		for _, item := range strings.Split(m[1], ";") {
			f := strings.Fields(item)
			if len(f) >= 2 {
				out[id] = append(out[id], evidence{Path: f[0], Funcs: f[1:]})
			}
		}
	}
	return out
}

// job is one patch to try.
type job struct {
	ID, Name, Path string
	Evidence       []evidence
	Env            []string // added to the tests' environment
	Last           killer   // what killed it last time, from docs/proofs/KILLERS (zero when unknown)
}

type result struct {
	job
	Outcome string // killed, survived, broken
	Detail  string
	Took    time.Duration
	Suites  []suiteRun // what each package's go test took
}

// cpu is the processor time of the job's go test commands and everything
// they waited for (compiler, linker, test binary, the binaries its tests
// built): on a shared machine it varies less than the wall time does.
func (r result) cpu() time.Duration {
	var d time.Duration
	for _, s := range r.Suites {
		d += s.CPU
	}
	return d
}

// suiteRun is one package's go test in a job.
type suiteRun struct {
	Pkg   string
	Wall  time.Duration // the whole go test
	Build time.Duration // until the test binary started
	CPU   time.Duration
	Tests map[string]float64 // seconds of each top-level test that ended
}

func run(root, only string, workers int, timeout time.Duration, timings string, record bool, w io.Writer) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	ledger, err := os.ReadFile(filepath.Join(root, "docs", "invariants.md"))
	if err != nil {
		return err
	}
	ev := parseEvidence(string(ledger))
	names, err := filepath.Glob(filepath.Join(root, "docs", "proofs", "*.patch"))
	if err != nil {
		return err
	}
	var wanted []string
	if only != "" {
		wanted = strings.Split(only, ",")
	}
	var jobs []job
	for _, p := range names {
		base := filepath.Base(p)
		m := patchRe.FindStringSubmatch(base)
		if m == nil {
			return fmt.Errorf("%s: a mutation is named <ID>-<n>.patch, e.g. LOG-001-1.patch", p)
		}
		name := strings.TrimSuffix(base, ".patch")
		if wanted != nil && !slices.Contains(wanted, m[1]) && !slices.Contains(wanted, name) {
			continue
		}
		jobs = append(jobs, job{ID: m[1], Name: name, Path: p, Evidence: ev[m[1]]})
	}
	if len(jobs) == 0 {
		return fmt.Errorf("no patch in docs/proofs matches %q", only)
	}
	// Tests that find data beside the repository by walking up from their
	// package would look beside the scratch copy instead: name it for them
	// (sdk/tenuo/vectors_test.go).
	var env []string
	if vectors := filepath.Join(filepath.Dir(root), "shared", "vectors", "tenuo"); os.Getenv("PACT_TENUO_VECTORS") == "" {
		if _, err := os.Stat(vectors); err == nil {
			env = append(env, "PACT_TENUO_VECTORS="+vectors)
		}
	}
	killersFile := filepath.Join(root, "docs", "proofs", "KILLERS")
	last, err := readKillers(killersFile)
	if err != nil {
		return err
	}
	for i := range jobs {
		jobs[i].Env = env
		jobs[i].Last = last[jobs[i].Name]
		if record {
			// A run that records tries no test first: each patch's evidence
			// runs in the Evidence line's order (commands' packages last), so
			// a quicker test added to the line is found, not the old killer.
			jobs[i].Last.Test = ""
		}
	}
	files, err := sourceFiles(root)
	if err != nil {
		return err
	}
	workers = max(1, min(workers, len(jobs)))
	// The longest first (their seconds last time, else a guess from where
	// their evidence is), so that no long patch is left to run alone at the
	// end while the other workers idle.
	slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(estimate(b), estimate(a)) })
	// A fixed place per repository, so the next run's builds are
	// incremental too.
	base := filepath.Join(os.TempDir(), "pact-proofs", fmt.Sprintf("%x", hash(root)))
	// The tree as it is now, which the workers copy and restore from, so
	// edits made while the run goes on do not reach it.
	src := filepath.Join(base, "src")
	if err := scratch(root, src, files); err != nil {
		return err
	}
	for i := range jobs {
		patch, err := os.ReadFile(jobs[i].Path)
		if err != nil {
			return err
		}
		jobs[i].Path = filepath.Join(base, jobs[i].Name+".patch")
		if err := os.WriteFile(jobs[i].Path, patch, 0o644); err != nil {
			return err
		}
	}
	queue := make(chan job)
	results := make(chan result)
	var wg sync.WaitGroup
	var setupErr error
	var once sync.Once
	for i := range workers {
		dir := filepath.Join(base, fmt.Sprintf("w%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := scratch(src, dir, files); err != nil {
				once.Do(func() { setupErr = err })
				for j := range queue {
					results <- result{job: j, Outcome: "broken", Detail: "scratch copy: " + err.Error()}
				}
				return
			}
			for j := range queue {
				results <- try(src, dir, j, timeout)
			}
		}()
	}
	go func() {
		for _, j := range jobs {
			queue <- j
		}
		close(queue)
	}()
	go func() { wg.Wait(); close(results) }()

	start := time.Now()
	var all []result
	for r := range results {
		fmt.Fprintf(w, "%-12s %-14s %-8s %5.0fs %5.0fs cpu %s\n", r.ID, r.Name, r.Outcome, r.Took.Seconds(), r.cpu().Seconds(), r.Detail)
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b result) int { return strings.Compare(a.Name, b.Name) })
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTRACT\tPATCH\tOUTCOME\tSECONDS\tCPU")
	bad, skipped := 0, 0
	var took, cpu time.Duration
	for _, r := range all {
		took, cpu = took+r.Took, cpu+r.cpu()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\n", r.ID, r.Name, r.Outcome, r.Took.Seconds(), r.cpu().Seconds())
		switch r.Outcome {
		case "killed":
		case "skipped":
			skipped++
		default:
			bad++
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d patches, %d killed, %d skipped, in %s (the patches' seconds add up to %s, their CPU time to %s)\n",
		len(all), len(all)-bad-skipped, skipped, time.Since(start).Round(time.Second), took.Round(time.Second), cpu.Round(time.Second))
	if timings != "" {
		if err := writeTimings(timings, all); err != nil {
			return err
		}
	}
	for _, r := range all {
		if r.Outcome == "skipped" {
			fmt.Fprintf(w, "%s skipped: %s\n", r.Name, r.Detail)
		}
	}
	if setupErr != nil {
		return setupErr
	}
	if record {
		if err := writeKillers(killersFile, last, all); err != nil {
			return err
		}
	}
	if bad > 0 {
		for _, r := range all {
			if r.Outcome != "killed" && r.Outcome != "skipped" {
				fmt.Fprintf(w, "%s %s: %s\n", r.Name, r.Outcome, r.Detail)
			}
		}
		return fmt.Errorf("%d of %d mutations were not killed: a survived one means its contract's evidence cannot fail for it (docs/proofs/README.md)", bad, len(all))
	}
	return nil
}

func hash(s string) uint32 {
	var h uint32 = 2166136261
	for i := range len(s) {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// sourceFiles lists what git would commit: the tracked files as they are
// now, and the untracked ones that are not ignored, so a mutation is tried
// against the tree being worked on.
func sourceFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, f)); err == nil {
			files = append(files, f)
		}
	}
	return files, nil
}

// scratch makes dir a fresh copy of files, with an empty git repository
// so `git apply` takes the patch's paths from dir.
func scratch(root, dir string, files []string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(root, f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	// Some evidence lists the tracked files (`git ls-files`), so the copy's
	// index holds them.
	return gitAdd(dir)
}

// gitAdd brings the index of dir's repository up to date with paths (all
// of dir when none are given).
func gitAdd(dir string, paths ...string) error {
	cmd := exec.Command("git", append([]string{"add", "-A", "--"}, paths...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git add: %v: %s", err, out)
	}
	return nil
}

func copyFile(from, to string) error {
	st, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, st.Mode().Perm())
}

// touched returns the paths a patch changes (`git apply --numstat`).
func touched(dir, patch string) ([]string, error) {
	cmd := exec.Command("git", "apply", "--numstat", patch)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.SplitN(sc.Text(), "\t", 3); len(f) == 3 {
			paths = append(paths, f[2])
		}
	}
	return paths, nil
}

// restore puts the touched paths back as they are in root.
func restore(root, dir string, paths []string) error {
	var errs []error
	for _, p := range paths {
		dst := filepath.Join(dir, p)
		if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			errs = append(errs, copyFile(filepath.Join(root, p), dst))
		}
	}
	return errors.Join(errs...)
}

// try applies one patch in dir, runs its contract's evidence and restores
// dir.
func try(root, dir string, j job, timeout time.Duration) (r result) {
	r.job = j
	start := time.Now()
	defer func() { r.Took = time.Since(start) }()
	if len(j.Evidence) == 0 {
		r.Outcome, r.Detail = "broken", "docs/invariants.md has no Evidence line for "+j.ID
		return r
	}
	paths, err := touched(dir, j.Path)
	if err != nil || len(paths) == 0 {
		r.Outcome, r.Detail = "broken", "the patch is not a git diff that changes anything"
		return r
	}
	applied := false
	defer func() {
		err := restore(root, dir, paths)
		if err == nil && applied {
			err = gitAdd(dir, paths...)
		}
		if err != nil {
			// The next patch would run on a damaged copy: stop here.
			fmt.Fprintln(os.Stderr, "pact-proofs: restoring", dir, ":", err)
			os.Exit(2)
		}
	}()
	apply := exec.Command("git", "apply", j.Path)
	apply.Dir = dir
	if out, err := apply.CombinedOutput(); err != nil {
		r.Outcome, r.Detail = "broken", "does not apply: "+oneLine(string(out))
		return r
	}
	applied = true
	if err := gitAdd(dir, paths...); err != nil {
		r.Outcome, r.Detail = "broken", err.Error()
		return r
	}
	r.Outcome, r.Detail, r.Suites = evidenceRun(dir, j.Evidence, j.Last, timeout, j.Env)
	return r
}

// suite is the evidence in one package: its Go module and test names.
type suite struct {
	Module string // directory holding go.mod, relative to the root
	Pkg    string // the package, relative to Module ("./core/ledger")
	Funcs  []string
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
	re := "^(" + strings.Join(s.Funcs, "|") + ")$"
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
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false -trimpath")
	cmd.Env = append(cmd.Env, extraEnv...)
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
	var failed, buildFail, tail []string
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
		switch {
		case e.Action == "build-output" && len(tail) < 5:
			tail = append(tail, strings.TrimSpace(e.Output))
		case e.Action == "build-fail":
			buildFail = append(buildFail, e.ImportPath)
		case e.Action == "output" && strings.HasPrefix(e.Output, "panic: test timed out"):
			return "killed", fmt.Sprintf("%s timed out after %s (a hang counts as a failure)", s.Pkg, timeout), nil, nil, sr
		case e.Test != "" && !strings.Contains(e.Test, "/"):
			switch e.Action {
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
	case cmd.ProcessState != nil && !cmd.ProcessState.Success() && len(passed)+len(skipped) == 0:
		// Nothing ran (TestMain failed, or go test could not start): a
		// mutation that breaks everything proves nothing about its contract.
		return "broken", s.Pkg + ": no evidence test ran: " + oneLine(stderr.String()+" "+string(out)), nil, nil, sr
	case cmd.ProcessState != nil && !cmd.ProcessState.Success():
		return "killed", s.Pkg + ": the test binary failed after its evidence tests passed", nil, nil, sr
	}
	return "", "", passed, skipped, sr
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
