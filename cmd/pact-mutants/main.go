// Command pact-mutants is make mutants (docs/mutants.md): each of gremlins'
// mutants of the packages with rules (every comparison, boundary and
// arithmetic operator) runs against the tests that execute its code.
//
//	pact-mutants -draw all|ID[,ID]
//	pact-mutants [-list] [-recount] [-pkg core/redact[,modules/notes]] [-slice NAME] [-bound 30m] [-coefficient 4]
//
// The population is every package go list finds under core/, modules/ and
// cmd/pact-runner, less the test harnesses this command names with a
// reason (harnesses). docs/mutants.slices divides a package's files into
// slices, each a run that fits in about 30 minutes; a package it does not
// name is one slice. Before a package's slices run, each of its tests runs
// alone with coverage (measureCoverage); gremlins --dry-run lists the
// mutants (dryRun), and each then runs, compiled through go's -overlay,
// against the tests that execute its statement, else its function, else
// the whole suite (runSlice): a test that never reaches a mutant cannot
// kill it. Results go to .mutants/<pkg>.<slice>.json (gremlins' -o
// format), and a line per slice to .mutants/summary.txt.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	list := flag.Bool("list", false, "print the packages and their slices, and run nothing")
	recount := flag.Bool("recount", false, "count again the results of the last runs (.mutants/*.json), and run nothing")
	drawFor := flag.String("draw", "", "draw a mutation for these contracts (comma-separated ids, or all) into docs/proofs, and run nothing else")
	pkgs := flag.String("pkg", "", "comma-separated packages (core/redact); empty is the whole population")
	only := flag.String("slice", "", "run only the slice of this name")
	bound := flag.Duration("bound", 40*time.Minute, "bound on one slice's run: the mutants not reached by then are skipped")
	coefficient := flag.Int("coefficient", 4, "a mutant's test run is bounded by its tests' time unmutated times this")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if *drawFor != "" {
		if err := runDraw(*root, *drawFor, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "pact-mutants:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*root, *pkgs, *only, mode{*list, *recount}, *bound, *coefficient, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pact-mutants:", err)
		os.Exit(1)
	}
}

// mode says what run does instead of running mutants: list the slices, or
// recount the last results.
type mode struct{ list, recount bool }

func run(root, pkgs, only string, m mode, bound time.Duration, coefficient int, w io.Writer) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	pop, err := population(root)
	if err != nil {
		return err
	}
	wanted := pop
	if pkgs != "" {
		wanted = strings.Split(pkgs, ",")
		for _, p := range wanted {
			if !slices.Contains(pop, p) {
				return fmt.Errorf("%s is not in the population (pact-mutants -list)", p)
			}
		}
	}
	defs, err := readSlices(filepath.Join(root, "docs", "mutants.slices"))
	if err != nil {
		return err
	}
	type plan struct {
		pkg    string
		files  []string
		slices []slice
	}
	var plans []plan
	for _, p := range wanted {
		files, err := goFiles(root, p)
		if err != nil {
			return err
		}
		ss, err := slicesOf(defs, p, files)
		if err != nil {
			return err
		}
		plans = append(plans, plan{p, files, ss})
	}
	if m.list {
		for _, p := range plans {
			for _, s := range p.slices {
				fmt.Fprintf(w, "%s\t%s\t%s\n", p.pkg, s.Name, strings.Join(s.Files, " "))
			}
		}
		return nil
	}
	work := filepath.Join(root, ".mutants")
	if m.recount {
		for _, p := range plans {
			concats, err := stringConcats(root, p.pkg, p.files)
			if err != nil {
				return err
			}
			for _, s := range p.slices {
				if only != "" && s.Name != only {
					continue
				}
				o := outcome{Pkg: p.pkg, Slice: s.Name}
				out := resultsFile(work, p.pkg, s.Name)
				if _, err := os.Stat(out); err != nil {
					o.Err = "no results: not run yet"
				} else if err := o.read(out, concats); err != nil {
					return err
				}
				fmt.Fprintln(w, o)
			}
		}
		return nil
	}
	gremlins, env, err := tools(root, work)
	if err != nil {
		return err
	}
	summary, err := os.OpenFile(filepath.Join(work, "summary.txt"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer summary.Close()
	failed := 0
	for _, p := range plans {
		fmt.Fprintf(w, "== %s: which tests execute which statements\n", p.pkg)
		cov, err := measureCoverage(root, p.pkg, work)
		if err != nil {
			return err
		}
		muts, err := dryRun(root, gremlins, env, p.pkg, work)
		if err != nil {
			return err
		}
		concats, err := stringConcats(root, p.pkg, p.files)
		if err != nil {
			return err
		}
		for _, s := range p.slices {
			if only != "" && s.Name != only {
				continue
			}
			fmt.Fprintf(w, "== %s %s (%d files, reached by %d tests)\n", p.pkg, s.Name, len(s.Files), len(cov.testsOf(s.Files)))
			o := runSlice(root, s, muts, cov, concats, resultsFile(work, p.pkg, s.Name), work, bound, coefficient, w)
			fmt.Fprintln(w, o)
			fmt.Fprintln(summary, time.Now().UTC().Format(time.DateOnly), o)
			if o.Err != "" {
				failed++
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d slices gave no results", failed)
	}
	return nil
}

// runDraw is -draw: ids is comma-separated contract ids, or all.
func runDraw(root, ids string, w io.Writer) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	work := filepath.Join(root, ".mutants")
	gremlins, env, err := tools(root, work)
	if err != nil {
		return err
	}
	var list []string
	if ids != "all" {
		list = strings.Split(ids, ",")
	}
	return draw(root, gremlins, env, list, work, w)
}

// resultsFile is where a slice's gremlins results go.
func resultsFile(work, pkg, slice string) string {
	return filepath.Join(work, strings.ReplaceAll(pkg, "/", "_")+"."+slice+".json")
}
