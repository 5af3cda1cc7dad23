package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// stats counts a scenario's calls by tool and outcome, with the latencies
// of the answered ones (refusals included: they are answers).
type stats struct {
	mu    sync.Mutex
	lat   map[string][]time.Duration
	codes map[string]map[string]int
	// since, when set (keepTimes), is the start every answered call's
	// time is kept from, for the picture of latency over time.
	since time.Time
	times []timedCall
}

// timedCall is one answered call: when it ended, since the start.
type timedCall struct {
	tool    string
	at, lat time.Duration
}

// keepTimes makes s keep every answered call's time from now on.
func (s *stats) keepTimes() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.since = time.Now()
}

func newStats() *stats {
	return &stats{lat: map[string][]time.Duration{}, codes: map[string]map[string]int{}}
}

func (s *stats) record(tool string, d time.Duration, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code != transportErr {
		s.lat[tool] = append(s.lat[tool], d)
		if !s.since.IsZero() {
			s.times = append(s.times, timedCall{tool: tool, at: time.Since(s.since), lat: d})
		}
	}
	if code == "" {
		code = "ok"
	}
	if s.codes[tool] == nil {
		s.codes[tool] = map[string]int{}
	}
	s.codes[tool][code]++
}

// answered is how many calls were answered so far, refusals included
// (the board did their work too); pact_events holds are counted once each.
func (s *stats) answered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, codes := range s.codes {
		for code, c := range codes {
			if code != transportErr {
				n += c
			}
		}
	}
	return n
}

// print writes one line per tool: calls, outcomes by code, p50/p99/max.
func (s *stats) print(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tools() {
		total := 0
		var parts []string
		codes := make([]string, 0, len(s.codes[t]))
		for c := range s.codes[t] {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		for _, c := range codes {
			total += s.codes[t][c]
			parts = append(parts, fmt.Sprintf("%s=%d", c, s.codes[t][c]))
		}
		p50, p99, top := percentiles(s.lat[t])
		fmt.Fprintf(w, "  %-12s calls=%d %s  p50=%s p99=%s max=%s\n", t, total, strings.Join(parts, " "),
			round(p50), round(p99), round(top))
	}
}

// tools are the tools called, in name order (s.mu held).
func (s *stats) tools() []string {
	tools := make([]string, 0, len(s.codes))
	for t := range s.codes {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	return tools
}

// printRates writes one line per tool: answered calls per second over
// elapsed, p50 and p99 of their latencies, and the refusals by code.
func (s *stats) printRates(w io.Writer, elapsed time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(w, "  %-20s %8s %9s %9s  %s\n", "call", "calls/s", "p50", "p99", "refused")
	for _, t := range s.tools() {
		var refused []string
		for c, n := range s.codes[t] {
			if c != "ok" {
				refused = append(refused, fmt.Sprintf("%s=%d", c, n))
			}
		}
		sort.Strings(refused)
		p50, p99, _ := percentiles(s.lat[t])
		fmt.Fprintf(w, "  %-20s %8.1f %9s %9s  %s\n", t, float64(s.codes[t]["ok"])/elapsed.Seconds(), round(p50), round(p99),
			strings.Join(refused, " "))
	}
}

func percentiles(ds []time.Duration) (p50, p99, top time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.50), at(0.99), s[len(s)-1]
}

func round(d time.Duration) time.Duration {
	if d > 10*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}
