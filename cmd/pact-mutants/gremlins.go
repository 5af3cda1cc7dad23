package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// gremlinsModule is the mutation tool whose mutants make mutants runs:
// its --dry-run lists them (dryRun).
const gremlinsModule = "github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0"

// tools installs gremlins into work/tools and writes work/bin/go, a go that
// starts each command in a session of its own (setsid -w): a mutant that
// signals its process group (kill(0), as a pluginhost mutant does) then
// kills only its own test run, not gremlins (docs/mutants.md). gremlins runs
// as an installed binary: under go run, $GOROOT/bin would come first on its
// PATH and the wrapper would be bypassed.
func tools(root, work string) (gremlins string, env []string, err error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", nil, err
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nexec setsid -w %s \"$@\"\n", goBin)
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(wrapper), 0o755); err != nil {
		return "", nil, err
	}
	install := exec.Command("go", "install", gremlinsModule)
	install.Dir = root
	install.Env = append(os.Environ(), "GOBIN="+filepath.Join(work, "tools"))
	if out, err := install.CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("go install %s: %v: %s", gremlinsModule, err, out)
	}
	env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return filepath.Join(work, "tools", "gremlins"), env, nil
}

// outcome is one slice's run: the counts of its mutants' verdicts.
type outcome struct {
	Pkg, Slice                                              string
	Killed, Lived, TimedOut, NotCovered, NotViable, Skipped int
	ByHand                                                  int // mutants run against the whole suite, among the counts
	Took                                                    time.Duration
	Err                                                     string // the run failed, or ran past the bound
}

func (o outcome) efficacy() float64 {
	if o.Killed+o.Lived == 0 {
		return 100
	}
	return 100 * float64(o.Killed) / float64(o.Killed+o.Lived)
}

func (o outcome) String() string {
	s := fmt.Sprintf("%s %s: mutants %d, killed %d, lived %d, timed out %d, not covered %d, not viable %d, efficacy %.2f%%, %s",
		o.Pkg, o.Slice, o.Killed+o.Lived+o.TimedOut+o.NotCovered+o.NotViable+o.Skipped, o.Killed, o.Lived, o.TimedOut,
		o.NotCovered, o.NotViable, o.efficacy(), o.Took.Round(time.Second))
	if o.ByHand > 0 {
		s += fmt.Sprintf(" (%d run against the whole suite: no test executes their function)", o.ByHand)
	}
	if o.Err != "" {
		s += " (" + o.Err + ")"
	}
	return s
}

// read counts the statuses of gremlins' -o results, after marking not
// viable the mutants gremlins could not have compiled: - for a + that joins
// strings (concats, from stringConcats), which it reports killed where a
// test covers them. The file is rewritten with the statuses counted.
func (o *outcome) read(file string, concats map[string]bool) error {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		// gremlins writes no results where it found nothing to mutate
		// (core/seams: declarations alone), and says so by exiting 0.
		return nil
	}
	if err != nil {
		return err
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	files, _ := r["files"].([]any)
	for _, f := range files {
		f, _ := f.(map[string]any)
		name, _ := f["file_name"].(string)
		muts, _ := f["mutations"].([]any)
		for _, m := range muts {
			m, _ := m.(map[string]any)
			status, _ := m["status"].(string)
			at := fmt.Sprintf("%s:%v:%v", filepath.Base(name), m["line"], m["column"])
			if m["type"] == "ARITHMETIC_BASE" && concats[at] {
				status = "NOT VIABLE"
				m["status"] = status
			}
			if m["by_hand"] == true {
				o.ByHand++
			}
			switch strings.ToUpper(status) {
			case "KILLED":
				o.Killed++
			case "LIVED":
				o.Lived++
			case "TIMED OUT":
				o.TimedOut++
			case "NOT COVERED":
				o.NotCovered++
			case "NOT VIABLE":
				o.NotViable++
			default:
				o.Skipped++
			}
		}
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
}
