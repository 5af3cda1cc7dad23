// Command pact-faults is the fault harness of docs/reliability.md: it runs
// real pact-board processes on one real PostgreSQL, attacks them with real
// MCP clients and kills, and fails when anything acknowledged is lost. It
// builds nothing: -board-bin names a built pact-board (make build).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the flags; every scenario reads the ones it needs.
type options struct {
	scenario string
	boardBin string
	boards   int
	races    int
	perTask  int
	parallel int
	rounds   int
	// roundsSet is whether -rounds was given: scenario rolling runs 9
	// rounds (each of 3 boards 3 times) unless told otherwise.
	roundsSet bool
	writers   int
	roundFor  time.Duration
	// reportMisses makes the kill scenario report, not fail on, tasks its
	// watchers never saw (docs/reliability.md, "Finding: pact_events
	// cursors skip tasks committed out of order").
	reportMisses bool
	// boardEnv is added to every board's variables (startShared).
	boardEnv map[string]string
	// The day (make load): agents in projects, pacts among them, people in
	// the console, how long it runs, and a worker's mean pause between
	// calls.
	agents, projects, pacts, people int
	dayFor, dayPause                time.Duration
	// picture, when set, is where the day writes its SVG of latency over
	// time.
	picture string
	// profileDir, when set, is where the day writes a CPU profile of each
	// board over the middle half of its run (day_profile.go).
	profileDir string
	// pgStatements, when positive, loads pg_stat_statements into the
	// day's PostgreSQL and prints that many of its longest statements
	// (day_statements.go).
	pgStatements int
}

// scenario runs one fault scenario, printing its figures to out; an error
// means something was lost or went wrong.
type scenario func(ctx context.Context, o options, out io.Writer) error

// scenarios maps each -scenario name to its run, in the order "all" runs them.
func scenarios() map[string]scenario {
	return map[string]scenario{"claims": runClaims, "kill": runKill, "pgrestart": runPGRestart, "pool": runPool, "rolling": runRolling,
		"restart": runRestart, "day": runDay, "cells": runCells}
}

// scenarioOrder is what "all" runs: the faults. The day is make load's,
// run on its own.
func scenarioOrder() []string {
	return []string{"claims", "kill", "pgrestart", "pool", "rolling", "restart"}
}

// fullSize are the defaults: the sizes docs/reliability.md reports.
func fullSize() options {
	return options{boardBin: "bin/pact-board", boards: 3, races: 10000, perTask: 8, parallel: 4,
		rounds: 20, writers: 6, roundFor: 1500 * time.Millisecond,
		agents: 400, projects: 6, pacts: 200, people: 3, dayFor: time.Minute, dayPause: 2 * time.Second}
}

func run(args []string, stdout, stderr io.Writer) int {
	o := fullSize()
	fs := flag.NewFlagSet("pact-faults", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.scenario, "scenario", "all", "claims, kill, pgrestart, pool, rolling, restart, or all ("+strings.Join(scenarioOrder(), ", ")+
		" in turn); day: the load profile of make load, alone; cells: the day in two cells behind one router (docs/scaling.md)")
	fs.StringVar(&o.boardBin, "board-bin", o.boardBin, "the pact-board binary to run (make build writes bin/pact-board)")
	fs.IntVar(&o.boards, "boards", o.boards, "boards sharing the database (claims, kill, pgrestart, pool)")
	fs.IntVar(&o.races, "races", o.races, "claims: tasks raced for")
	fs.IntVar(&o.perTask, "clients", o.perTask, "claims: agents racing for each task")
	fs.IntVar(&o.parallel, "parallel", o.parallel, "claims: races run at once")
	fs.IntVar(&o.rounds, "rounds", o.rounds, "kill: boards killed in turn; pgrestart: PostgreSQL restarts, fast and immediate in turn (4 when not set); rolling: boards stopped by SIGTERM in turn (9 when not set); restart: restarts (default 20; restart uses at most 5)")
	fs.IntVar(&o.writers, "writers", o.writers, "kill, pgrestart, rolling: agents posting tasks without pause")
	fs.DurationVar(&o.roundFor, "round", o.roundFor, "kill: load before each kill, and again while the board is down; pgrestart: load before each restart, and after the last; rolling: load before each SIGTERM")
	fs.IntVar(&o.agents, "agents", o.agents, "day: agents, a quarter of them holding pact_events")
	fs.IntVar(&o.projects, "projects", o.projects, "day: projects the agents are spread over")
	fs.IntVar(&o.pacts, "pacts", o.pacts, "day: open pacts, each of up to four of a project's agents")
	fs.IntVar(&o.people, "people", o.people, "day: people signed in to the console who answer deferred tasks and pact decisions")
	fs.DurationVar(&o.dayFor, "for", o.dayFor, "day: how long the load runs")
	fs.DurationVar(&o.dayPause, "pause", o.dayPause, "day: a working agent's mean pause between calls")
	fs.StringVar(&o.picture, "picture", "", "day: write an SVG of each call type's p99 latency over time to this file")
	fs.StringVar(&o.profileDir, "profile", "", "day: write a CPU profile of each board over the middle half of the run to this directory (<board>.cpu.pprof)")
	fs.IntVar(&o.pgStatements, "pg-statements", 0, "day: count PostgreSQL's statements over the run (pg_stat_statements) and print this many of the longest")
	fs.BoolVar(&o.reportMisses, "report-cursor-misses", false,
		"kill: report, without failing, acknowledged tasks a watcher's pact_events never returned (a known finding, docs/reliability.md)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fs.Visit(func(f *flag.Flag) { o.roundsSet = o.roundsSet || f.Name == "rounds" })
	if _, err := os.Stat(o.boardBin); err != nil {
		fmt.Fprintf(stderr, "pact-faults: -board-bin %s: %v (run make build first)\n", o.boardBin, err)
		return 2
	}
	names := scenarioOrder()
	if o.scenario != "all" {
		if scenarios()[o.scenario] == nil {
			fmt.Fprintf(stderr, "pact-faults: unknown scenario %q; expected one of %s or all\n", o.scenario, strings.Join(sortedNames(), ", "))
			return 2
		}
		names = []string{o.scenario}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	failed := 0
	for _, name := range names {
		start := time.Now()
		fmt.Fprintf(stdout, "== scenario %s\n", name)
		err := scenarios()[name](ctx, o, stdout)
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s after %s: %v\n", name, time.Since(start).Round(time.Second), err)
			continue
		}
		fmt.Fprintf(stdout, "PASS %s in %s\n", name, time.Since(start).Round(time.Second))
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func sortedNames() []string {
	var n []string
	for k := range scenarios() {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
