package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// What BenchmarkEventsHolders measures of the board's process, what it
// needs of the machine, and the profiles it writes on request
// (docs/benchmarks.md, "Held pact_events calls").

type memStats struct {
	heap, stack, rss, peak uint64
	goroutines             int
}

// processMemory is the process's heap and stacks in use after a GC, its
// resident set (VmRSS), its peak resident set since resetPeakRSS (VmHWM)
// and its goroutines. Two GCs, because one GC shrinks an idle goroutine's
// stack by half at most.
func processMemory() memStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := memStats{heap: m.HeapInuse, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}
	status, _ := os.ReadFile("/proc/self/status")
	for line := range strings.Lines(string(status)) {
		for key, into := range map[string]*uint64{"VmRSS:": &s.rss, "VmHWM:": &s.peak} {
			if rest, ok := strings.CutPrefix(line, key); ok {
				kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				*into = kb * 1024
			}
		}
	}
	return s
}

// resetPeakRSS makes VmHWM start again from the current resident set
// (proc(5), clear_refs), so the peak reported is the holders' own.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// holderLimits raises this process's open-file limit to its hard limit and
// says why n holders cannot be run when the hard limit or the loopback
// ephemeral port range is too small. Each process (the board's, the
// helper's) holds one socket per holder, plus the board's database
// connections, files and listeners.
func holderLimits(n int) error {
	need := uint64(n) + 1024
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("cannot read RLIMIT_NOFILE: %v", err)
	}
	if lim.Max < need {
		return fmt.Errorf("%d holders need %d open files per process, and the hard limit (ulimit -Hn) is %d", n, need, lim.Max)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return fmt.Errorf("cannot raise RLIMIT_NOFILE to %d: %v", lim.Max, err)
		}
	}
	// Every holder is one connection from the helper to the board's one
	// port, so each needs its own ephemeral port. Round 2 connects again
	// while round 1's ports may sit in TIME_WAIT; Linux reuses those for
	// loopback (net.ipv4.tcp_tw_reuse = 2, its default).
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if errors.Is(err, os.ErrNotExist) {
		return nil // not Linux: the dial errors will say it
	}
	var lo, hi int
	if _, err := fmt.Sscan(string(raw), &lo, &hi); err != nil {
		return fmt.Errorf("cannot read the ephemeral port range %q: %v", raw, err)
	}
	if hi-lo+1 < n+100 {
		return fmt.Errorf("%d holders need %d loopback ports, and net.ipv4.ip_local_port_range gives %d", n, n+100, hi-lo+1)
	}
	return nil
}

// profileEnv names a directory: when set, the benchmark writes there the
// CPU profile of the board's process while the calls are set up, and its
// heap and goroutine profiles while every call is held. Allocations are
// then sampled every 4 kB rather than 512 kB, so that each held call's
// few small objects show; the timings of such a run mean little.
const profileEnv = "PACT_BENCH_PROFILE"

// stacksEnv, set to 1 with profileEnv, then ends the process with every
// goroutine's traceback at GOTRACEBACK=system, whose fp= and sp= give each
// frame's size: what decides the stack a waiting goroutine keeps.
const stacksEnv = "PACT_BENCH_STACKS"

// startHolderProfiles turns finer allocation sampling on when profiles
// are asked for; call it before the board starts.
func startHolderProfiles() {
	if os.Getenv(profileEnv) != "" {
		runtime.MemProfileRate = 4096
	}
}

// profileSetup starts the CPU profile of setting the calls up, when
// profiles are asked for, and returns what stops it.
func profileSetup(b *testing.B, n int) (stop func()) {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-holders=%d.pprof", n)))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }
}

func writeHolderProfiles(b *testing.B, n int) {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return
	}
	// A heap profile is as of the last GC but one or two (runtime.MemProfile):
	// two more, and it is the state processMemory measured.
	runtime.GC()
	runtime.GC()
	for name, debugLevel := range map[string]int{"heap": 0, "goroutine": 1} {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-holders=%d.pprof", name, n)))
		if err != nil {
			b.Fatal(err)
		}
		err = pprof.Lookup(name).WriteTo(f, debugLevel)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if os.Getenv(stacksEnv) == "1" {
		debug.SetTraceback("system")
		_ = syscall.Kill(os.Getpid(), syscall.SIGQUIT)
		select {}
	}
}
