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
}

func newStats() *stats {
	return &stats{lat: map[string][]time.Duration{}, codes: map[string]map[string]int{}}
}

func (s *stats) record(tool string, d time.Duration, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code != transportErr {
		s.lat[tool] = append(s.lat[tool], d)
	}
	if code == "" {
		code = "ok"
	}
	if s.codes[tool] == nil {
		s.codes[tool] = map[string]int{}
	}
	s.codes[tool][code]++
}

// print writes one line per tool: calls, outcomes by code, p50/p99/max.
func (s *stats) print(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tools := make([]string, 0, len(s.codes))
	for t := range s.codes {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
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
