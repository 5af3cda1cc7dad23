package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// quietHours is a span of local hours with no new claims: from start up to
// end, across midnight when end < start. The zero value has none.
type quietHours struct {
	set        bool
	start, end int
}

// parseQuietHours reads "22-07" (from 22:00 to 07:00); "" is none.
func parseQuietHours(s string) (quietHours, error) {
	if strings.TrimSpace(s) == "" {
		return quietHours{}, nil
	}
	a, b, ok := strings.Cut(s, "-")
	start, err1 := strconv.Atoi(strings.TrimSpace(a))
	end, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || start < 0 || start > 23 || end < 0 || end > 23 || start == end {
		return quietHours{}, fmt.Errorf("PACT_RUNNER_QUIET_HOURS must be two different hours 0-23 like 22-07, not %q", s)
	}
	return quietHours{set: true, start: start, end: end}, nil
}

// until returns, when t is inside the quiet hours, when they end.
func (q quietHours) until(t time.Time) (time.Time, bool) {
	if !q.set {
		return time.Time{}, false
	}
	h := t.Hour()
	inside := (q.start < q.end && h >= q.start && h < q.end) || (q.start > q.end && (h >= q.start || h < q.end))
	if !inside {
		return time.Time{}, false
	}
	end := time.Date(t.Year(), t.Month(), t.Day(), q.end, 0, 0, 0, t.Location())
	if !end.After(t) {
		end = end.AddDate(0, 0, 1)
	}
	return end, true
}

// dailyCap counts the runs of the current local day. It is the process's
// own count: a restart starts it again (docs/runner.md).
type dailyCap struct {
	max  int
	day  string
	runs int
}

// full returns, when the day's runs are used up, when the next day starts.
func (d *dailyCap) full(t time.Time) (time.Time, bool) {
	d.roll(t)
	if d.max == 0 || d.runs < d.max {
		return time.Time{}, false
	}
	y, m, day := t.Date()
	return time.Date(y, m, day+1, 0, 0, 0, 0, t.Location()), true
}

func (d *dailyCap) add(t time.Time) {
	d.roll(t)
	d.runs++
}

func (d *dailyCap) roll(t time.Time) {
	if day := t.Format(time.DateOnly); day != d.day {
		d.day, d.runs = day, 0
	}
}
