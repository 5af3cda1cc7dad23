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
//	pact-proofs [-only LOG-001,ID-002] [-workers 2] [-timeout 5m] [-record] [-fresh] [-audit 10] [-plan] [-timings FILE]
//
// A patch killed in an earlier run is kept, not run again, while the key
// of every input its verdict can depend on (inputs.go) is the one
// docs/proofs/KILLERS recorded with its kill, but one in -audit of them
// runs anyway; -fresh runs every patch, and -plan prints which would run
// and runs none. Each run writes the keys of the patches it killed into
// KILLERS.
//
// Each worker keeps one scratch copy at a fixed path under the temporary
// directory, and builds with -trimpath, so the Go build cache (keyed by
// content) makes every build after the first incremental, across workers,
// patches and runs; the unmutated tree is compiled once before the workers
// start. A patch first runs alone the evidence test that killed it last
// time, or that test's failing subtest (docs/proofs/KILLERS), and the
// patches start longest first by their seconds there. Then, or when that test passes, the evidence runs one
// package at a time with -failfast and stops at the first package that
// fails: one failing test is all a kill needs. Two runs on one repository
// at once would share those copies; run one at a time.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
	fresh := flag.Bool("fresh", false, "run every patch, keeping no kill from docs/proofs/KILLERS however unchanged its inputs")
	plan := flag.Bool("plan", false, "print which patches would run and which are kept, with their keys and inputs, and run none")
	audit := flag.Int("audit", 10, "run one in this many of the kills that would be kept anyway, chosen by key, to check that a kept kill is still a kill (0: none)")
	flag.Parse()
	o := options{only: *only, workers: *workers, timeout: *timeout, timings: *timings, record: *record, fresh: *fresh, plan: *plan, audit: *audit}
	if err := run(*root, o, os.Stdout); err != nil {
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
	patchRe    = regexp.MustCompile(`^([A-Z]+-[0-9]{3})-(g?[0-9]+)\.patch$`)
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
	Key            string   // of the inputs its verdict can depend on (inputs.go)
}

// options are the command's flags but -root.
type options struct {
	only          string
	workers       int
	timeout       time.Duration
	timings       string
	record, fresh bool
	plan          bool
	audit         int // one in this many keepable kills runs anyway
}

// keeps reports whether j's kill is kept, not run: its key is the one its
// kill was recorded with, and it is not one of the audited (one in
// o.audit, by key, so that the sample changes as the keys do).
func (o options) keeps(j job) bool {
	if o.fresh || o.record || j.Last.Key == "" || j.Key != j.Last.Key {
		return false
	}
	if o.audit <= 0 {
		return true
	}
	n, err := strconv.ParseUint(j.Key[:8], 16, 64)
	return err == nil && n%uint64(o.audit) != 0
}

type result struct {
	job
	Outcome string // killed, survived, broken
	Detail  string
	Kept    bool // killed in an earlier run with the same key, not run now
	Took    time.Duration
	Suites  []suiteRun // what each package's go test took
	// With -record, the failing subtest of the killing test, shown to pass
	// alone on the unmutated tree, and what that run took (see narrow).
	Narrowed *killer
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

	FailedSub  string   // the first subtest that failed ("TestA/sub/leaf"), if any
	PassedSubs []string // the subtests that passed
}

func run(root string, o options, w io.Writer) error {
	only, workers, timeout, timings, record := o.only, o.workers, o.timeout, o.timings, o.record
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
			return fmt.Errorf("%s: a mutation is named <ID>-<n>.patch, or <ID>-g<n>.patch where a tool drew it, e.g. LOG-001-1.patch", p)
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
	start := time.Now()
	t, err := loadTree(src, files, filepath.Join(filepath.Dir(root), "shared", "vectors"))
	if err != nil {
		return err
	}
	var kept []result
	torun := jobs[:0]
	for _, j := range jobs {
		patch, err := os.ReadFile(j.Path)
		if err != nil {
			return err
		}
		j.Key = t.key(j, patch, patchedPaths(patch))
		if o.plan {
			verdict := "run "
			if o.keeps(j) {
				verdict = "kept"
			} else if j.Key == j.Last.Key {
				verdict = "audit"
			}
			fmt.Fprintf(w, "%s %-16s %s (was %s) %d inputs besides the global ones\n", verdict, j.Name, j.Key, cmp.Or(j.Last.Key, "none"), len(t.inputs(evidenceDirs(j))))
			continue
		}
		if o.keeps(j) {
			kept = append(kept, result{job: j, Outcome: "killed", Kept: true, Detail: "kept: its inputs are as they were when it was killed"})
			continue
		}
		j.Path = filepath.Join(base, j.Name+".patch")
		if err := os.WriteFile(j.Path, patch, 0o644); err != nil {
			return err
		}
		torun = append(torun, j)
	}
	jobs = torun
	if o.plan {
		return nil
	}
	fmt.Fprintf(w, "%d of %d patches kept: killed before, with every input their verdicts can depend on as it is now, and not among the one in %d run again to check (FRESH=1 runs them all)\n", len(kept), len(kept)+len(jobs), o.audit)
	if len(jobs) > 0 {
		if err := warm(src); err != nil {
			return err
		}
		fmt.Fprintf(w, "compiled the unmutated tree in %s\n", time.Since(start).Round(time.Second))
	}
	workers = max(1, min(workers, len(jobs)))
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
				r := try(src, dir, j, timeout)
				if record {
					r.Narrowed = narrow(dir, r, timeout)
				}
				results <- r
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

	all := kept
	for r := range results {
		fmt.Fprintf(w, "%-12s %-14s %-8s %5.0fs %5.0fs cpu %s\n", r.ID, r.Name, r.Outcome, r.Took.Seconds(), r.cpu().Seconds(), r.Detail)
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b result) int { return strings.Compare(a.Name, b.Name) })
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTRACT\tPATCH\tOUTCOME\tSECONDS\tCPU")
	bad, skipped, nKept := 0, 0, 0
	var took, cpu time.Duration
	for _, r := range all {
		took, cpu = took+r.Took, cpu+r.cpu()
		outcome := r.Outcome
		if r.Kept {
			outcome = "kept"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.0f\t%.0f\n", r.ID, r.Name, outcome, r.Took.Seconds(), r.cpu().Seconds())
		if r.Kept {
			nKept++
		}
		switch r.Outcome {
		case "killed":
		case "skipped":
			skipped++
		default:
			bad++
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d patches, %d killed (%d of them kept, not run), %d skipped, in %s (the patches' seconds add up to %s, their CPU time to %s)\n",
		len(all), len(all)-bad-skipped, nKept, skipped, time.Since(start).Round(time.Second), took.Round(time.Second), cpu.Round(time.Second))
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
	if err := writeKillers(killersFile, last, all, record); err != nil {
		return err
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
