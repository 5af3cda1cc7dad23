package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pactboard/pact/core/envfile"
)

// defaultTools are the board tools a run's session may call unless the
// role says otherwise: what the original gave its sessions.
const defaultTools = "pact_whoami,pact_list,pact_note,pact_post"

// config is what a runner runs with: the connection (PACT_URL, PACT_TOKEN,
// PACT_AGENT_ID, as pact-connect writes them in the Runner's env file) and
// the role's PACT_RUNNER_* settings (docs/specs/behavior.md §3.2).
type config struct {
	URL, Token, AgentID string
	// Command is a custom command run with sh -c; "" runs Claude Code
	// (Claude) in print mode with the run's own MCP config (session.go).
	Command string
	Claude  string
	// Tools are the board tools a run's session may call
	// (PACT_RUNNER_ALLOWED_TOOLS); the board enforces them.
	Tools []string
	// RoleFile holds the role's instructions, appended to the session's
	// system prompt; Repo is where the session runs ("": the runner's
	// working directory).
	RoleFile, Repo string
	// Protected are the branch patterns the push guard refuses pushes to;
	// AllowForce lets it pass force pushes (guard.go).
	Protected           []string
	AllowForce          bool
	MaxTurns            int
	RunTimeout          time.Duration
	MaxRunsPerDay       int
	Quiet               quietHours
	TakeOpen            bool
	Heartbeat           time.Duration
	Grace               time.Duration
	LogDir              string
	LogLevel, LogFormat string
	Once                bool
	Schedule            []scheduleEntry
	Workers             string // PACT_RUNNER_WORKERS, {project} not filled
	MaxWait             time.Duration

	// now is the clock of quiet hours, the daily cap and schedules (nil:
	// time.Now).
	now func() time.Time
}

// setting is one variable the runner reads, with its default and meaning,
// for --help and docs/runner.md.
type setting struct{ name, def, meaning string }

func settings() []setting {
	return []setting{
		{"PACT_URL", "", "the board's base URL, e.g. https://board.example.com (the runner calls <PACT_URL>/mcp/a/<PACT_AGENT_ID>)"},
		{"PACT_TOKEN", "", "the agent's pact_… token"},
		{"PACT_AGENT_ID", "", "the agent's id (its client must be runner)"},
		{"PACT_RUNNER_COMMAND", "", "a custom command run for each task with sh -c instead of Claude Code (in a role's settings only an owner may set it); " +
			"it gets the run's MCP config as PACT_MCP_CONFIG"},
		{"PACT_RUNNER_CLAUDE", "claude", "the Claude Code executable the default command runs (a name on PATH or a path)"},
		{"PACT_RUNNER_ALLOWED_TOOLS", defaultTools, "the board tools a run's session may call, comma-separated; its credential lists only these " +
			"(never pact_claim, pact_report, pact_defer or pact_revoke), and the board refuses any other"},
		{"PACT_RUNNER_ROLE_FILE", "", "a file of the role's instructions, appended to the session's system prompt"},
		{"PACT_RUNNER_REPO", "", "the directory the session runs in (the Runner's repository; pact-connect --repo clones it); default: the runner's working directory"},
		{"PACT_RUNNER_PROTECTED_BRANCHES", "main,master", "branches (shell patterns, e.g. release/*) the push guard refuses pushes to"},
		{"PACT_RUNNER_ALLOW_FORCE_PUSH", "0", "1: the push guard lets force pushes pass (to branches not protected)"},
		{"PACT_RUNNER_MAX_TURNS", "40", "turns per run at most; a run gets min(this, the claim's turns budget) as PACT_MAX_TURNS"},
		{"PACT_RUNNER_RUN_TIMEOUT_MINUTES", "30", "a run still going after this long is killed and reported failed"},
		{"PACT_RUNNER_MAX_RUNS_PER_DAY", "20", "claims per local day at most; then it waits for the next day (0: no cap)"},
		{"PACT_RUNNER_QUIET_HOURS", "", "local hours with no new claims, e.g. 22-07 (from 22:00 to 07:00)"},
		{"PACT_RUNNER_TAKE_OPEN", "0", "1: also claim open tasks delegated to nobody (by default only those delegated to this agent)"},
		{"PACT_RUNNER_HEARTBEAT_SECONDS", "600", "how often a run's claim is renewed (pact_report status=working)"},
		{"PACT_RUNNER_GRACE_SECONDS", "60", "on SIGTERM, how long a running task may take to finish before it is killed"},
		{"PACT_RUNNER_SCHEDULE", "", `tasks it posts and runs itself once a local day, a JSON list like [{"at":"07:30","title":"Daily brief","body":"Brief for {date} since {since}.","action":"report.brief"}]`},
		{"PACT_RUNNER_WORKERS", "", "agents it may post subtasks to, comma-separated, {project} filled, e.g. worker-{project}"},
		{"PACT_RUNNER_MAX_WAIT_HOURS", "24", "how long a task waits for its subtasks at most"},
		{"PACT_RUNNER_LOG_DIR", "<$XDG_STATE_HOME, else ~/.local/state>/pact-runner", "where each run's output (<task id>.log) and subtasks file are kept; " +
			"created mode 0700; the runner refuses to start when it is owned by another user, open to group or others, or a symbolic link"},
		{"PACT_LOG_LEVEL", "info", "trace, debug, info, warn, error or off"},
		{"PACT_LOG_FORMAT", "text", "text or json"},
	}
}

// loadConfig reads flags, then the env file (--env-file), then the
// environment: a variable set in the environment wins over the file, and
// --command over both.
func loadConfig(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("pact-runner", flag.ContinueOnError)
	fs.SetOutput(stderr)
	envFile := fs.String("env-file", "", "a file of KEY=value lines (the Runner env file pact-connect writes)")
	command := fs.String("command", "", "the command run for each task, with sh -c (overrides PACT_RUNNER_COMMAND)")
	once := fs.Bool("once", false, "handle at most one task, or return when none is waiting")
	fs.Usage = func() { usage(fs, stderr) }
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	file := map[string]string{}
	if *envFile != "" {
		var err error
		if file, err = envfile.Read(*envFile); err != nil {
			return nil, err
		}
	}
	get := func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		if v, ok := file[k]; ok {
			return v
		}
		for _, s := range settings() {
			if s.name == k && !strings.HasPrefix(s.def, "<") {
				return s.def
			}
		}
		return ""
	}
	c := &config{URL: strings.TrimRight(get("PACT_URL"), "/"), Token: get("PACT_TOKEN"), AgentID: get("PACT_AGENT_ID"),
		Command: get("PACT_RUNNER_COMMAND"), Claude: get("PACT_RUNNER_CLAUDE"), RoleFile: get("PACT_RUNNER_ROLE_FILE"), Repo: get("PACT_RUNNER_REPO"),
		Tools: splitList(get("PACT_RUNNER_ALLOWED_TOOLS")), Protected: splitList(get("PACT_RUNNER_PROTECTED_BRANCHES")),
		AllowForce: get("PACT_RUNNER_ALLOW_FORCE_PUSH") == "1", TakeOpen: get("PACT_RUNNER_TAKE_OPEN") == "1", LogDir: get("PACT_RUNNER_LOG_DIR"), Workers: get("PACT_RUNNER_WORKERS"),
		LogLevel: get("PACT_LOG_LEVEL"), LogFormat: get("PACT_LOG_FORMAT"), Once: *once}
	if *command != "" {
		c.Command = *command
	}
	for _, need := range [][2]string{{"PACT_URL", c.URL}, {"PACT_TOKEN", c.Token}, {"PACT_AGENT_ID", c.AgentID}} {
		if need[1] == "" {
			return nil, fmt.Errorf("%s is not set (environment or --env-file)", need[0])
		}
	}
	var err error
	if c.LogDir == "" {
		if c.LogDir, err = defaultLogDir(getenv); err != nil {
			return nil, err
		}
	}
	// Refused at start, whether set or the default (SEC-019).
	if err := secureLogDir(c.LogDir); err != nil {
		return nil, err
	}
	ints := []struct {
		key string
		to  *int
	}{{"PACT_RUNNER_MAX_TURNS", &c.MaxTurns}, {"PACT_RUNNER_MAX_RUNS_PER_DAY", &c.MaxRunsPerDay}}
	for _, i := range ints {
		if *i.to, err = strconv.Atoi(get(i.key)); err != nil || *i.to < 0 {
			return nil, fmt.Errorf("%s must be a whole number ≥ 0, not %q", i.key, get(i.key))
		}
	}
	durations := []struct {
		key  string
		unit time.Duration
		to   *time.Duration
	}{{"PACT_RUNNER_RUN_TIMEOUT_MINUTES", time.Minute, &c.RunTimeout}, {"PACT_RUNNER_HEARTBEAT_SECONDS", time.Second, &c.Heartbeat},
		{"PACT_RUNNER_GRACE_SECONDS", time.Second, &c.Grace}, {"PACT_RUNNER_MAX_WAIT_HOURS", time.Hour, &c.MaxWait}}
	for _, d := range durations {
		f, err := strconv.ParseFloat(get(d.key), 64)
		if err != nil || f <= 0 {
			return nil, fmt.Errorf("%s must be a number > 0, not %q", d.key, get(d.key))
		}
		*d.to = time.Duration(f * float64(d.unit))
	}
	if c.Quiet, err = parseQuietHours(get("PACT_RUNNER_QUIET_HOURS")); err != nil {
		return nil, err
	}
	if c.Schedule, err = parseSchedule(get("PACT_RUNNER_SCHEDULE")); err != nil {
		return nil, err
	}
	if err := c.checkSetup(); err != nil {
		return nil, err
	}
	return c, nil
}

// splitList is a comma-separated list without blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `pact-runner: a headless agent of PACT Board (docs/runner.md).

It holds pact_events until a task it may claim appears, claims it with the
task's delegated mandate (exclusive, reserve {"runs": 1}), asks the board
for the run's own credential (pact_run_credential: only the tools of
PACT_RUNNER_ALLOWED_TOOLS, under the claim's mandate, dead once the run is
over), runs the command in PACT_RUNNER_REPO, heartbeats while it runs, and
reports the outcome with a Handoff and usage.

The default command is Claude Code in print mode: claude -p with the run's
MCP config (--mcp-config, --strict-mcp-config), its tools pre-approved
(--allowedTools mcp__pact__<tool>), --max-turns, the push guard
(--settings), --output-format json, the role's instructions
(--append-system-prompt-file PACT_RUNNER_ROLE_FILE), --max-budget-usd when
the mandate limits usd, and for a report.brief task --json-schema for the
structured brief. Its JSON result gives the text, usage.turns (num_turns)
and usage.usd (total_cost_usd). A custom command (PACT_RUNNER_COMMAND) runs
with sh -c and finds the run's MCP config in PACT_MCP_CONFIG.

The command gets the task framed as a request from another agent on stdin,
and PACT_TASK_ID, PACT_TASK_TITLE, PACT_TASK_BODY, PACT_PROJECT_ID,
PACT_MAX_TURNS and PACT_MCP_CONFIG in its environment (PACT_TOKEN is
removed from it). Its stdout is the result: reported as is when it has a
"## Handoff" section, else with a Handoff the runner writes (what ran, exit
status, where the output is kept). Exit 0 reports completed, anything else
failed. Output that is not Claude Code's JSON result may give the turns in
a line PACT_TURNS=<n> (else 1).

Bad setups stop it at start, before any claim: the command missing, the
repository or role file absent, a tool the board does not have.

The push guard: pact-runner guard [--protected main,master] [--allow-force]
is the PreToolUse hook it installs for its sessions; it refuses git pushes
to protected branches, of every branch, and force pushes (docs/runner.md).

Sub-agents: the command may write subtasks to PACT_SUBTASKS_FILE, one JSON
object a line, {"title":…,"body":…,"worker":…}; the runner posts each to a
worker of PACT_RUNNER_WORKERS with a share of the turns left, waits for them
(PACT_RUNNER_MAX_WAIT_HOURS) and reports their results with the task.
Schedules: PACT_RUNNER_SCHEDULE entries are posted by the runner once a
local day at their time ({date}, {project}, {since} filled) and run by it.

Log directory: PACT_RUNNER_LOG_DIR, by default $XDG_STATE_HOME/pact-runner
(else ~/.local/state/pact-runner), is created mode 0700; the runner refuses
to start when another user owns it, it is open to group or others, or it is
a symbolic link, and opens no file in it through a symbolic link.

Refusals: system_halted, agent_paused and agent_unknown stop the runner;
mandate_revoked, mandate_expired and chain_broken make it read pact_whoami
again and switch to a live root mandate, or stop when it has none; other
refusals of a claim skip the task. claim_lost while a run goes on kills it.
On SIGTERM a running task gets PACT_RUNNER_GRACE_SECONDS to finish, else it
is killed and reported failed with a Handoff saying it was stopped.

Usage: pact-runner [--env-file FILE] [--command CMD] [--once]
       pact-runner guard [--protected PATTERNS] [--allow-force]   (the push guard, a hook)

Flags:
`)
	fs.PrintDefaults()
	fmt.Fprint(w, "\nEnvironment (or the env file):\n")
	for _, s := range settings() {
		def := s.def
		if def == "" {
			def = "–"
		}
		fmt.Fprintf(w, "  %s (default %s)\n      %s\n", s.name, def, s.meaning)
	}
}
