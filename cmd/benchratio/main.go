// Command benchratio reads `go test -bench` output and prints the board's
// speed goals beside the references measured in the same run
// (docs/benchmarks.md, "References"): the read tools against the go-sdk
// floor, the write tools against pgbench, and the one-client latencies.
// `make bench-ratios` runs the benchmarks and pipes them here.
//
//	benchratio [file …]    (standard input when no file is named)
//
// A figure that is missing (a benchmark not run, or skipped) prints as
// "not run"; the exit code is 1 only when the input holds no benchmark
// result at all, which means the wrong thing was piped in. A missed goal
// is reported, never an error: speed is measured, not asserted.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	var inputs []io.Reader
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchratio: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		inputs = append(inputs, f)
	}
	if len(inputs) == 0 {
		inputs = append(inputs, os.Stdin)
	}
	results, err := parse(io.MultiReader(inputs...))
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchratio: %v\n", err)
		os.Exit(2)
	}
	if len(results) == 0 {
		fmt.Fprintln(os.Stderr, "benchratio: the input holds no benchmark results")
		os.Exit(1)
	}
	if err := report(os.Stdout, results); err != nil {
		fmt.Fprintf(os.Stderr, "benchratio: %v\n", err)
		os.Exit(2)
	}
}

// results maps a benchmark name (without its -GOMAXPROCS suffix) and a unit
// to every value reported for it (several with -count).
type results map[string]map[string][]float64

var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// parse reads result lines: "BenchmarkX/sub-2  N  v unit  v unit …".
// Everything else (logs, PASS, ok) is skipped.
func parse(r io.Reader) (results, error) {
	out := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := procsSuffix.ReplaceAllString(f[0], "")
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			if out[name] == nil {
				out[name] = map[string][]float64{}
			}
			out[name][f[i+1]] = append(out[name][f[i+1]], v)
		}
	}
	return out, sc.Err()
}

// get is the median of name's values in unit.
func (r results) get(name, unit string) (float64, bool) {
	vs := slices.Clone(r[name][unit])
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if n := len(vs); n%2 == 0 {
		return (vs[n/2-1] + vs[n/2]) / 2, true
	}
	return vs[len(vs)/2], true
}

// A throughput goal: the board's figure over its reference's.
type ratioGoal struct {
	tool, board, refName, ref, refUnit string
}

var ratioGoals = []ratioGoal{
	{"pact_whoami", "BenchmarkMCPCalls/pact_whoami/clients=16", "go-sdk floor", "BenchmarkMCPFloor/clients=16", "calls/s"},
	{"pact_list", "BenchmarkMCPCalls/pact_list/clients=16", "go-sdk floor", "BenchmarkMCPFloor/clients=16", "calls/s"},
	{"pact_post", "BenchmarkMCPCalls/pact_post/clients=16", "pgbench post", "BenchmarkPgbenchPost/clients=16", "tx/s"},
	{"pact_post", "BenchmarkMCPCalls/pact_post/clients=16", "pgbench post, no lock", "BenchmarkPgbenchPostNoLock/clients=16", "tx/s"},
	{"pact_claim", "BenchmarkMCPCalls/pact_claim/clients=16", "pgbench claim", "BenchmarkPgbenchClaim/clients=16", "tx/s"},
}

// minRatio and maxP50 are the goals (docs/benchmarks.md, "References").
const minRatio, maxP50 = 0.5, 2.0

var latencyTools = []string{"pact_whoami", "pact_list", "pact_post"}

func report(w io.Writer, r results) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "16 clients\tboard calls/s\treference\tref/s\tratio\tgoal ≥ %.1f\n", minRatio)
	for _, g := range ratioGoals {
		board, okB := r.get(g.board, "calls/s")
		ref, okR := r.get(g.ref, g.refUnit)
		ratio, verdict := "-", "not run"
		if okB && okR && ref > 0 {
			ratio, verdict = fmt.Sprintf("%.2f", board/ref), met(board/ref >= minRatio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", g.tool, figure(board, okB), g.refName, figure(ref, okR), ratio, verdict)
	}
	fmt.Fprintf(tw, "\n1 client\tboard p50 ms\treference\tref p50 ms\tgoal ≤ %.0f ms\n", maxP50)
	floor, okF := r.get("BenchmarkMCPFloor/clients=1", "p50-ms")
	for _, tool := range latencyTools {
		p50, ok := r.get("BenchmarkMCPCalls/"+tool+"/clients=1", "p50-ms")
		verdict := "not run"
		if ok {
			verdict = met(p50 <= maxP50)
		}
		fmt.Fprintf(tw, "%s\t%s\tgo-sdk floor\t%s\t%s\n", tool, figure(p50, ok), figure(floor, okF), verdict)
	}
	return tw.Flush()
}

func figure(v float64, ok bool) string {
	switch {
	case !ok:
		return "-"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}
