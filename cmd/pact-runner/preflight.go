package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// A bad setup fails loudly, once, before any task is claimed: a task is
// never claimed only to fail on a cause the runner could see at start
// (docs/runner.md, "Bad setups").

var toolNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// checkSetup refuses what the machine shows is wrong: the command missing,
// the repository or the role file absent, a tool list that names nothing
// or not tools.
func (c *config) checkSetup() error {
	if c.Command == "" {
		if _, err := exec.LookPath(c.Claude); err != nil {
			return fmt.Errorf("PACT_RUNNER_CLAUDE: %q is not installed or not on PATH; install Claude Code "+
				"(npm install -g @anthropic-ai/claude-code) or set PACT_RUNNER_CLAUDE to its path", c.Claude)
		}
	} else if word := firstWord(c.Command); word != "" {
		if err := exec.Command("sh", "-c", `command -v -- "$1" >/dev/null 2>&1`, "sh", word).Run(); err != nil {
			return fmt.Errorf("PACT_RUNNER_COMMAND: %q is not a command on this machine; install it or fix the command", word)
		}
	}
	if c.Repo != "" {
		if fi, err := os.Stat(c.Repo); err != nil || !fi.IsDir() {
			return fmt.Errorf("PACT_RUNNER_REPO: %s is not a directory; clone the repository there (pact-connect --repo <git URL>) or fix the path", c.Repo)
		}
	}
	if c.RoleFile != "" {
		if fi, err := os.Stat(c.RoleFile); err != nil || !fi.Mode().IsRegular() {
			return fmt.Errorf("PACT_RUNNER_ROLE_FILE: %s is not a readable file; run pact-connect again or fix the path", c.RoleFile)
		}
	}
	if len(c.Tools) == 0 {
		return fmt.Errorf("PACT_RUNNER_ALLOWED_TOOLS is empty; name the board tools a run may call, e.g. %s", defaultTools)
	}
	for _, t := range c.Tools {
		if !toolNamePattern.MatchString(t) {
			return fmt.Errorf("PACT_RUNNER_ALLOWED_TOOLS: %q is not a tool name (board tools look like pact_list)", t)
		}
	}
	return nil
}

// firstWord is the command word of a sh -c command line: its first field
// after variable assignments, or "" when it starts with shell syntax the
// runner does not judge (a subshell, a group, a redirection).
func firstWord(command string) string {
	for _, f := range strings.Fields(command) {
		switch {
		case strings.ContainsAny(f[:1], `({<>!;&|"'$`+"`"):
			return ""
		case strings.Contains(f, "="):
			continue
		default:
			return f
		}
	}
	return ""
}

// neverGranted are the tools the board withholds from every run's
// credential (modules/board, pact_run_credential).
func neverGranted() []string {
	return []string{"pact_claim", "pact_report", "pact_defer", "pact_revoke", "pact_run_credential"}
}

// checkBoardTools refuses PACT_RUNNER_ALLOWED_TOOLS naming a tool the
// board does not have, and a board that issues no per-run credentials; a
// tool a run never gets is only warned about.
func (r *runner) checkBoardTools(ctx context.Context) error {
	s, err := r.board.open(ctx)
	if err != nil {
		return err
	}
	var have []string
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list the board's tools: %w", err)
		}
		have = append(have, t.Name)
	}
	return checkTools(r.cfg.Tools, have, func(withheld []string) {
		r.log.Warn("PACT_RUNNER_ALLOWED_TOOLS names tools a run never gets; the board withholds them", "tools", withheld)
	})
}

// checkTools is checkBoardTools' rule over the board's tool names.
func checkTools(allowed, have []string, warn func([]string)) error {
	if !slices.Contains(have, "pact_run_credential") {
		return fmt.Errorf("this board issues no per-run credentials (no pact_run_credential tool); upgrade the board")
	}
	var withheld []string
	for _, t := range allowed {
		switch {
		case !slices.Contains(have, t):
			slices.Sort(have)
			return fmt.Errorf("PACT_RUNNER_ALLOWED_TOOLS names %s, which this board does not have; it has %s", t, strings.Join(have, ", "))
		case slices.Contains(neverGranted(), t):
			withheld = append(withheld, t)
		}
	}
	if len(withheld) > 0 {
		warn(withheld)
	}
	return nil
}
