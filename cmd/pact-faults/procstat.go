package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// usage is what a group of processes has used: CPU time (user and
// system) and resident memory, summed over the processes.
type usage struct {
	cpu time.Duration
	rss int64
}

// clockTick is the unit of /proc/<pid>/stat's times: USER_HZ, 100 on
// every Linux the board runs on (sysconf(_SC_CLK_TCK)).
const clockTick = 10 * time.Millisecond

// procUsage reads the usage of pids and of their children (PostgreSQL's
// backends are its postmaster's children) from /proc. A process that has
// gone is left out; on a system without /proc the usage is zero.
func procUsage(pids ...int) usage {
	want := map[int]bool{}
	for _, p := range pids {
		want[p] = p > 0
	}
	var u usage
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command, which is in parentheses and may
		// hold spaces: state ppid … utime(14) stime(15) … rss(24).
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		if !want[pid] && !want[ppid] {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		rss, _ := strconv.ParseInt(f[21], 10, 64)
		u.cpu += time.Duration(utime+stime) * clockTick
		u.rss += rss * int64(os.Getpagesize())
	}
	return u
}
