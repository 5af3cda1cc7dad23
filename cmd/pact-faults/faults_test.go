package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The short form of `make faults`, inside `make test`: each scenario at a
// size that runs in well under a minute on two cores. The full sizes, and
// the figures they gave, are in docs/reliability.md.

// boardBinary builds pact-board for the test (the harness itself builds
// nothing), or takes PACT_FAULTS_BOARD_BIN when set.
func boardBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("PACT_FAULTS_BOARD_BIN"); bin != "" {
		return bin
	}
	root := filepath.Join("..", "..") // go test runs in the package's directory
	bin := filepath.Join(t.TempDir(), "pact-board")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/pact-board")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/pact-board: %v\n%s", err, out)
	}
	return bin
}

// runScenario runs pact-faults with args and fails t unless it exits 0.
func runScenario(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	code := run(append([]string{"-board-bin", boardBinary(t)}, args...), &out, &out)
	t.Log("\n" + out.String())
	if code != 0 {
		t.Fatalf("pact-faults %s exited %d", strings.Join(args, " "), code)
	}
	return out.String()
}

// REL-010: every race over three boards has exactly one winner, the others
// are refused already_claimed, the database agrees, and the log verifies.
// Four races at once, so each agent has several claims in flight: that is
// what made PostgreSQL fail a losing claim now and then with XX000 "new
// multixact has more than one updating member" while every call stamped
// last_seen in its transaction (docs/reliability.md, the claims finding).
func TestClaimsAcrossReplicas(t *testing.T) {
	out := runScenario(t, "-scenario", "claims", "-races", "120", "-parallel", "4")
	if !strings.Contains(out, "one winner: 120; assignee matches the winner: 120") {
		t.Fatalf("not every race had one winner the database agrees with:\n%s", out)
	}
}

// REL-011: boards killed with SIGKILL under load lose no acknowledged task,
// leave no task without its log entry and no committed entry without its
// place in its chain once they run again, and the held pact_events calls on
// them end and, re-issued elsewhere with their cursor, miss nothing; the
// watchers holding pact_events through it all are told of every
// acknowledged task (the cursor of migration 022).
func TestKillBoardUnderLoad(t *testing.T) {
	out := runScenario(t, "-scenario", "kill", "-rounds", "3", "-round", "500ms", "-writers", "3")
	for _, want := range []string{", lost: 0;", "tasks without a log entry: 0;", "log entries not placed by the boards: 0;",
		"ended with an error: 6 of 6;"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the figures lack %q:\n%s", want, out)
		}
	}
}

// The day of make load runs at a small size: every call type of its mix,
// the agents' and the people's in the console, is answered and reported
// with its rate and latencies, and nothing is refused or unanswered (the
// scenario fails on either). Deferrals (one claim in ten) and decisions
// (two calls in a hundred) are drawn at random: 8 s makes a run without
// one about as likely as one in five thousand.
func TestADayOfLoadRunsEveryCallType(t *testing.T) {
	picture := filepath.Join(t.TempDir(), "day.svg")
	profiles := t.TempDir()
	out := runScenario(t, "-scenario", "day", "-boards", "2", "-agents", "24", "-projects", "2", "-pacts", "4",
		"-people", "2", "-for", "8s", "-pause", "300ms", "-picture", picture, "-profile", profiles, "-pg-statements", "5")
	for _, want := range []string{"pact_list", "pact_post", "pact_note", "get_pact", "post_pact_message", "pact_events",
		"pact_claim", "pact_message", "pact_report", "pact_defer", "raise_pact_decision",
		"console: deferred", "console: resume", "console: decisions", "console: answer", "2 people in the console",
		"wake latency", "a person's answer", "log integration", "cores", "MB resident", "CPU per answered call",
		"PostgreSQL's statements over the day", "the 5 longest"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the figures lack %q:\n%s", want, out)
		}
	}
	svg, err := os.ReadFile(picture)
	if err != nil {
		t.Fatal(err)
	}
	for _, board := range []string{"board-0", "board-1"} {
		// Each board's CPU profile, as net/http/pprof writes one: gzipped.
		raw, err := os.ReadFile(filepath.Join(profiles, board+".cpu.pprof"))
		if err != nil || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
			t.Fatalf("%s's CPU profile is not a gzipped profile (%v, %d bytes):\n%s", board, err, len(raw), out)
		}
	}
	for _, want := range []string{"<svg", "<polyline", ">pact_post<", ">pact_list<", "</svg>"} {
		if !strings.Contains(string(svg), want) {
			t.Fatalf("the picture lacks %q:\n%s", want, svg)
		}
	}
}

// An agent waits through a SIGTERM restart of a board on the embedded
// default: the data survives, and its re-issued call gets the work posted
// after the restart.
func TestWaitThroughEmbeddedRestart(t *testing.T) {
	out := runScenario(t, "-scenario", "restart", "-rounds", "1")
	if !strings.Contains(out, "all present after every restart") {
		t.Fatalf("the data did not survive:\n%s", out)
	}
}

// REL-012: a rolling restart by SIGTERM of three boards behind a load
// balancer that routes on /readyz: each board leaves /readyz before it
// stops listening, answers its held calls with reconnect and the calls in
// flight it has read (none commits twice), and no call of a client that
// retries on another board fails; nothing acknowledged is lost and the
// watchers miss nothing. Every call in flight at a SIGTERM is answered
// (the drain leaves idle connections open until it ends; docs/reliability.md).
func TestRollingRestart(t *testing.T) {
	out := runScenario(t, "-scenario", "rolling", "-rounds", "3", "-round", "500ms", "-writers", "3")
	for _, want := range []string{"failed on all 3 attempts: 0\n", "no answer: 0\n", ", lost: 0;", "committed twice: 0\n", "tasks without a log entry: 0;",
		"never returned: 0 ", "to the probe held on the stopping board\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the figures lack %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`reconnect answers: (\d+) to the watchers, (\d+) of 3 to the probe`).FindStringSubmatch(out)
	if m == nil || m[2] != "3" {
		t.Fatalf("not every probe held on a stopping board was answered with reconnect:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Logf("no watcher's call was held on a stopping board in this run")
	}
}

// REL-020: PostgreSQL under three boards is stopped fast, then immediately,
// under load: every board refuses calls with 503 unavailable and the
// documented message while it is down, answers again by itself once it is
// back, and every pact_wait held through the outage returns the message
// sent after it; nothing acknowledged is lost (the harness's database runs
// with synchronous_commit on, as PostgreSQL's default is).
func TestPostgreSQLRestartUnderLoad(t *testing.T) {
	out := runScenario(t, "-scenario", "pgrestart", "-rounds", "2", "-round", "500ms", "-writers", "3")
	for _, want := range []string{"round 1: -m fast;", "round 2: -m immediate;", "3/3 held waits got the message",
		", lost: 0;", "tasks without a log entry: 0;", "never returned: 0 "} {
		if !strings.Contains(out, want) {
			t.Fatalf("the figures lack %q:\n%s", want, out)
		}
	}
	if regexp.MustCompile(`refused unavailable (\d+) of (\d+)`).FindAllStringSubmatch(out, -1) == nil {
		t.Fatalf("no call was made during an outage:\n%s", out)
	}
}

// REL-021: boards with 2 connections each take 20 calls at once: with
// nothing in the way all are answered; with the tasks table locked, every
// call ends, answered or refused unavailable with a documented message,
// and none hangs; once the lock is gone all are answered again.
func TestPoolRunsOut(t *testing.T) {
	out := runScenario(t, "-scenario", "pool")
	for _, want := range []string{"nothing in the way: 60 calls: answered 60,", "the lock gone: 60 calls: answered 60,",
		"still waiting on a lock: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the figures lack %q:\n%s", want, out)
		}
	}
}

// The first simulation of docs/scaling.md: the day in two cells, each a
// board on a PostgreSQL of its own, behind one router with a directory.
// Every call is answered through the router in both cells, each cell's
// log verifies, and neither cluster holds the other cell's work (the
// scenario fails otherwise).
func TestTwoCellsBehindOneRouter(t *testing.T) {
	out := runScenario(t, "-scenario", "cells", "-agents", "32", "-projects", "2", "-pacts", "4",
		"-for", "4s", "-pause", "300ms")
	for _, want := range []string{"== cell 0", "== cell 1", "pact_post", "pact_events", "wake latency",
		"its log verifies", "and 0 of other cells'", "requests for agents the directory lacks: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the figures lack %q:\n%s", want, out)
		}
	}
}
