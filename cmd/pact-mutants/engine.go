package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// job is one mutant of a slice: its place, the tests that can reach it
// (nil: the whole suite) and, once known, its verdict.
type job struct {
	file   string
	m      mutant
	tests  []int
	by     string // how its tests were found: statement, function or suite
	status string
	took   time.Duration
}

// results is a slice's results file: gremlins' -o format (every mutant
// with its file, line, column, type and status), and how each mutant's
// tests were found.
type results struct {
	Engine string        `json:"engine"`
	Key    string        `json:"key"` // the coverage's (treeKey): verdicts hold for that tree
	Files  []fileResults `json:"files"`
}

type fileResults struct {
	FileName  string   `json:"file_name"`
	Mutations []result `json:"mutations"`
}

type result struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// ByHand marks a mutant run against the whole suite: no test executes
	// its function (or it is in none), as gremlins would call it not covered.
	ByHand bool `json:"by_hand,omitempty"`
	// ReachedBy says how its tests were found (coverage.reach), and Tests
	// how many ran.
	ReachedBy string `json:"reached_by"`
	Tests     int    `json:"tests"`
	Seconds   int    `json:"seconds"`
}

// runSlice runs each of the slice's mutants (muts, gremlins' list) against
// the tests that reach it (cov), one at a time, compiling the next mutant
// while the current one's tests run. A mutant's run is bounded by its
// tests' time unmutated times coefficient (at least 10 s), the slice by
// bound: mutants not reached by then are written skipped. A - for a + that
// joins strings (concats) is not viable and not compiled. The results file
// out is written after each verdict, so a stopped run keeps what it found,
// and a run of the same tree (cov.Key) takes up from it: a mutant with a
// verdict there is not run again.
func runSlice(root string, s slice, muts map[string][]mutant, cov *coverage, concats map[string]bool, out, work string,
	bound time.Duration, coefficient int, w io.Writer) (o outcome) {
	o = outcome{Pkg: s.Pkg, Slice: s.Name}
	start := time.Now()
	defer func() { o.Took = time.Since(start) }()
	// go resolves -overlay's relative paths against its own directory.
	root, err := filepath.Abs(root)
	if err != nil {
		o.Err = err.Error()
		return o
	}
	jobs, err := plan(root, s, muts, cov, concats)
	if err != nil {
		o.Err = err.Error()
		return o
	}
	if n := resume(out, cov.Key, jobs); n > 0 {
		fmt.Fprintf(w, "   %d verdicts kept from the last run of this tree\n", n)
	}
	scratch, err := os.MkdirTemp(work, "slice-")
	if err != nil {
		o.Err = err.Error()
		return o
	}
	defer os.RemoveAll(scratch)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()

	type compiled struct {
		i      int
		bin    string
		viable bool
		err    error
	}
	ready := make(chan compiled, 1)
	go func() {
		defer close(ready)
		for i, j := range jobs {
			if j.status != "" {
				continue
			}
			if ctx.Err() != nil {
				return
			}
			bin, viable, err := compileMutant(root, s.Pkg, j, scratch, i)
			select {
			case ready <- compiled{i, bin, viable, err}:
			case <-ctx.Done():
				_ = os.Remove(bin)
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range ready {
		j := &jobs[c.i]
		switch {
		case c.err != nil:
			o.Err = c.err.Error()
		case !c.viable:
			j.status = "NOT VIABLE"
		default:
			names := cov.Tests
			var took time.Duration
			for _, t := range j.tests {
				took += cov.Took[t]
			}
			if j.tests != nil {
				names = make([]string, len(j.tests))
				for k, t := range j.tests {
					names[k] = cov.Tests[t]
				}
			} else {
				for _, t := range cov.Took {
					took += t
				}
			}
			begin := time.Now()
			j.status, _ = runTests(root, s.Pkg, c.bin, runPattern(names), max(took*time.Duration(coefficient), 10*time.Second))
			j.took = time.Since(begin)
			_ = os.Remove(c.bin)
		}
		if o.Err != "" {
			cancel()
			break
		}
		fmt.Fprintf(w, "   %s:%d:%d %s: %s (%d tests by %s, %s)\n", j.file, j.m.Line, j.m.Column, j.m.Type, j.status,
			len(j.tests), j.by, j.took.Round(time.Second))
		if err := writeResults(out, cov.Key, jobs); err != nil {
			o.Err = err.Error()
			cancel()
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	for range ready {
		// drain: the compiler stops at the cancelled context
	}
	for i := range jobs {
		if jobs[i].status == "" {
			jobs[i].status = "SKIPPED"
			if o.Err == "" {
				o.Err = fmt.Sprintf("ran past its bound of %s", bound)
			}
		}
	}
	if err := writeResults(out, cov.Key, jobs); err != nil && o.Err == "" {
		o.Err = err.Error()
	}
	if err := o.read(out, concats); err != nil && o.Err == "" {
		o.Err = err.Error()
	}
	return o
}

// plan lists the slice's mutants in file and position order, each with the
// tests that can reach it; a string join's - is not viable at once.
func plan(root string, s slice, muts map[string][]mutant, cov *coverage, concats map[string]bool) ([]job, error) {
	files := slices.Sorted(slices.Values(s.Files))
	var jobs []job
	for _, f := range files {
		ms := slices.Clone(muts[f])
		slices.SortFunc(ms, func(a, b mutant) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			if a.Column != b.Column {
				return a.Column - b.Column
			}
			return cmpString(a.Type, b.Type)
		})
		var src []byte
		if len(ms) > 0 {
			var err error
			if src, err = os.ReadFile(filepath.Join(root, s.Pkg, f)); err != nil {
				return nil, err
			}
		}
		for _, m := range ms {
			j := job{file: f, m: m}
			if m.Type == "ARITHMETIC_BASE" && concats[fmt.Sprintf("%s:%d:%d", f, m.Line, m.Column)] {
				j.status, j.by = "NOT VIABLE", "none"
				jobs = append(jobs, j)
				continue
			}
			_, from, to, inFunc := enclosing(src, m.Line)
			j.tests, j.by = cov.reach(f, m.Line, m.Column, from, to, inFunc)
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compileMutant writes job j's mutant of its file into scratch and compiles
// the package's tests with it through go's -overlay (the tree is never
// written). viable is false where it does not compile.
func compileMutant(root, pkg string, j job, scratch string, i int) (bin string, viable bool, err error) {
	path := filepath.Join(root, pkg, j.file)
	src, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	mutated, err := mutate(src, j.m.Line, j.m.Column, j.m.Type)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	file := filepath.Join(scratch, fmt.Sprintf("mutant-%d.go", i))
	overlay := filepath.Join(scratch, fmt.Sprintf("overlay-%d.json", i))
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {path: file}})
	if err != nil {
		return "", false, err
	}
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return "", false, err
	}
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return "", false, err
	}
	bin = filepath.Join(scratch, fmt.Sprintf("mutant-%d.test", i))
	if _, err := buildTests(root, pkg, bin, overlay); err != nil {
		return bin, false, nil
	}
	return bin, true, nil
}

// resume gives each job the verdict the results file out holds for it, if
// out was written for the tree key and the verdict is one (not skipped),
// and returns how many it gave.
func resume(out, key string, jobs []job) int {
	data, err := os.ReadFile(out)
	if err != nil {
		return 0
	}
	var r results
	if json.Unmarshal(data, &r) != nil || r.Key != key || key == "" {
		return 0
	}
	type place struct {
		file         string
		line, column int
		kind         string
	}
	had := map[place]result{}
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			had[place{f.FileName, m.Line, m.Column, m.Type}] = m
		}
	}
	n := 0
	for i := range jobs {
		j := &jobs[i]
		m, ok := had[place{j.file, j.m.Line, j.m.Column, j.m.Type}]
		if !ok || j.status != "" || m.Status == "SKIPPED" || m.Status == "" {
			continue
		}
		j.status, j.took = m.Status, time.Duration(m.Seconds)*time.Second
		n++
	}
	return n
}

// writeResults writes jobs to out, replacing it whole.
func writeResults(out, key string, jobs []job) error {
	r := results{Engine: "pact-mutants (gremlins v0.6.0's mutants)", Key: key}
	for _, j := range jobs {
		if len(r.Files) == 0 || r.Files[len(r.Files)-1].FileName != j.file {
			r.Files = append(r.Files, fileResults{FileName: j.file})
		}
		f := &r.Files[len(r.Files)-1]
		f.Mutations = append(f.Mutations, result{Type: j.m.Type, Status: j.status, Line: j.m.Line, Column: j.m.Column,
			ByHand: j.by == "suite", ReachedBy: j.by, Tests: len(j.tests), Seconds: int(j.took.Round(time.Second) / time.Second)})
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
