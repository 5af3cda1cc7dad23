// Command pact-connect connects the machine it runs on as an agent a person
// just hired: it redeems the one-time setup code once with POST /connect
// (docs/specs/behavior.md §10.3) and writes the token straight into the
// agent's client configuration, in files only their owner can read
// (docs/pact-connect.md; contract CONNECT-001 in docs/invariants.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	home, _ := os.UserHomeDir() // $HOME on Unix
	dir, _ := os.Getwd()
	code := run(ctx, os.Args[1:], env{Home: home, Dir: dir, HookDir: os.Getenv("PACT_HOOK_DIR"),
		Stdout: os.Stdout, Stderr: os.Stderr, GOOS: runtime.GOOS, LookPath: exec.LookPath})
	stop()
	os.Exit(code)
}

// env is what pact-connect takes from its surroundings, so a test can
// point every path somewhere temporary.
type env struct {
	Home string // the home directory ($HOME)
	Dir  string // the working directory: where .mcp.json goes without --dir
	// HookDir is $PACT_HOOK_DIR, where the hook script looks for
	// <agent>.env; "" means <Home>/.config/pact.
	HookDir        string
	Stdout, Stderr io.Writer
	// GOOS is the system it runs on (runtime.GOOS): on darwin a Runner
	// also gets a LaunchAgent. LookPath finds a program on PATH
	// (exec.LookPath); nil finds none.
	GOOS     string
	LookPath func(file string) (string, error)
}

// lookPath is e.LookPath, or "not found" without one.
func (e env) lookPath(file string) (string, error) {
	if e.LookPath == nil {
		return "", exec.ErrNotFound
	}
	return e.LookPath(file)
}

// options are the command line.
type options struct {
	board, code string
	dir, name   string
	repo        string
	// repoURL is --repo when it names a git repository: it is cloned into
	// repo (cloneDir) before the code is spent.
	repoURL    string
	force, dry bool
	insecure   bool
	// channel and rewake are how a Claude Code session hears its pacts
	// (docs/hooks.md): the pact-channel MCP server, or the rewake hook.
	channel, rewake bool
}

// Exit codes (docs/pact-connect.md).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const usage = `usage: pact-connect [flags] <board-url> <setup-code>

Redeems a one-time setup code (pcs_...) on the board, once, and writes the
agent's token into its client's configuration (docs/pact-connect.md):
  code    <dir>/.mcp.json: MCP server "pact" (merged), and
          ~/.config/pact/<agent>.env: PACT_URL, PACT_TOKEN for the hooks
  gemini  ~/.gemini/settings.json: mcpServers."pact" with httpUrl and headers (merged),
          for Gemini CLI, and the same server with serverUrl for Antigravity in
          ~/.gemini/config/mcp_config.json and, when ~/.gemini/antigravity
          exists, ~/.gemini/antigravity/mcp_config.json (merged)
  runner  ~/.config/pact/<agent>.env: the runner's settings and token, and
          ~/.config/pact/<agent>-role.md: the role's instructions, if any;
          it prints the command pact-runner will run (PACT_RUNNER_COMMAND)
          on a line of its own; on macOS also
          ~/Library/LaunchAgents/com.pactboard.runner.<agent>.plist
  a2a     ~/.config/pact/<agent>.env: PACT_A2A_URL, PACT_A2A_CARD_URL and
          PACT_TOKEN, for an A2A client (docs/a2a.md)
Every file holding a token is mode 600; directories it creates are 700.
$PACT_HOOK_DIR replaces ~/.config/pact.

Flags (before or after the arguments):
  --dir DIR     code: the project directory for .mcp.json (default: the current directory);
                runner with --repo URL: where to clone it (default: ~/pact/<its name>)
  --name NAME   code, gemini: the MCP server's name (default: pact)
  --repo DIR    runner: the runner's clone, written as PACT_RUNNER_REPO; a git URL
                (https://…, ssh://…, git@host:path) is cloned first, before the code is spent
  --channel     code: also the pact-channel MCP server in .mcp.json (no token in it: it reads the
                hooks env file), which pushes pact messages and task events into the session
                (a research preview of Claude Code: see docs/hooks.md)
  --rewake      code: instead, the rewake hook in <dir>/.claude/settings.local.json (merged): an
                async Stop hook running pact-hook.sh <agent> rewake; never both
  --force       replace an MCP server of that name that belongs to another agent
  --dry-run     redeem the code and print what would be written (tokens masked), writing nothing
  --insecure    allow http:// to a board that is not on this machine
  -h, --help    this text

Exit status: 0 connected (or dry run printed), 1 refused or failed (one line
on stderr, nothing written), 2 wrong usage.
`

// run is pact-connect with its arguments and surroundings; it returns the
// exit status.
func run(ctx context.Context, args []string, e env) int {
	o, err := parseArgs(args, e)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.Stdout, usage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "pact-connect: %v; see pact-connect --help\n", err)
		return exitUsage
	}
	if err := connect(ctx, o, e); err != nil {
		fmt.Fprintf(e.Stderr, "pact-connect: %v\n", err)
		return exitError
	}
	return exitOK
}

// parseArgs reads flags anywhere among the two arguments.
func parseArgs(args []string, e env) (options, error) {
	o := options{name: "pact"}
	fs := flag.NewFlagSet("pact-connect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.dir, "dir", "", "")
	fs.StringVar(&o.name, "name", "pact", "")
	fs.StringVar(&o.repo, "repo", "", "")
	fs.BoolVar(&o.force, "force", false, "")
	fs.BoolVar(&o.dry, "dry-run", false, "")
	fs.BoolVar(&o.insecure, "insecure", false, "")
	fs.BoolVar(&o.channel, "channel", false, "")
	fs.BoolVar(&o.rewake, "rewake", false, "")
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return o, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 2 {
		return o, fmt.Errorf("expected <board-url> <setup-code>, got %d arguments", len(pos))
	}
	if o.channel && o.rewake {
		return o, errors.New("--channel and --rewake: use either the channel or the rewake hook, never both")
	}
	o.board, o.code = pos[0], pos[1]
	dirGiven := o.dir != ""
	if o.dir == "" {
		o.dir = e.Dir
	} else if !filepath.IsAbs(o.dir) {
		o.dir = filepath.Join(e.Dir, o.dir)
	}
	switch {
	case o.repo != "" && isGitURL(o.repo):
		// Cloned into --dir, or ~/pact/<name>, before the code is spent.
		into := ""
		if dirGiven {
			into = o.dir
		}
		o.repoURL, o.repo = o.repo, cloneDir(o.repo, into, e.Home)
	case o.repo != "" && !filepath.IsAbs(o.repo):
		o.repo = filepath.Join(e.Dir, o.repo)
	}
	if !serverName.MatchString(o.name) {
		return o, fmt.Errorf("--name %q: use letters, digits, - and _", o.name)
	}
	return o, nil
}
