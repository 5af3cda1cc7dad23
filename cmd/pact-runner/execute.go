package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

// maxResult is how much of the command's stdout the report carries (its
// end); the board takes at most 100000 characters of JSON.
const maxResult = 80_000

// execute runs the command for task t, in the repository (PACT_RUNNER_REPO)
// and in a process group of its own so that killing it kills what it
// started: Claude Code with the run's session (session.go), or a custom
// command with sh -c. It ends when the command does, when runCtx ends
// (killed), or at the run timeout (exit -2).
func (r *runner) execute(runCtx context.Context, log hclog.Logger, t taskView, s *runSession, turns int, usd float64) outcome {
	start := time.Now()
	out := outcome{exit: -1}
	f, path, err := r.logFile(t.ID)
	if err != nil {
		log.Error("cannot keep the run's output", "error", err)
		f, path = nil, "(not kept: "+err.Error()+")"
	} else {
		defer f.Close()
	}
	out.logPath = path
	ctx, cancel := context.WithTimeout(runCtx, r.cfg.RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", r.cfg.Command)
	if r.cfg.Command == "" {
		cmd = exec.CommandContext(ctx, r.cfg.Claude, r.claudeArgs(s, t, turns, usd)...)
	}
	cmd.Dir = r.cfg.Repo
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	_ = os.Remove(r.subtasksFile(t.ID))
	cmd.Env = append(taskEnv(os.Environ(), r.cfg.AgentID, t, turns), "PACT_SUBTASKS_FILE="+r.subtasksFile(t.ID),
		"PACT_MCP_CONFIG="+s.mcpConfig)
	cmd.Stdin = strings.NewReader(prompt(t, r.cfg.AgentID, turns))
	stdout := &tail{max: maxResult}
	var logw io.Writer = io.Discard
	if f != nil {
		logw = f
	}
	cmd.Stdout = io.MultiWriter(stdout, logw)
	cmd.Stderr = logw
	err = cmd.Run()
	out.duration = time.Since(start)
	out.stdout = stdout.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil && runCtx.Err() == nil:
		out.exit = -2 // the run timeout
	case runCtx.Err() != nil:
		out.exit = -1
	case err == nil:
		out.exit = 0
	case errors.As(err, &exit):
		out.exit = exit.ExitCode()
	default:
		log.Error("the command did not start", "error", err)
		out.stdout += "\n(the command did not start: " + err.Error() + ")"
	}
	return out
}

// taskEnv is the runner's environment without its token, with the agent
// and the task.
func taskEnv(env []string, agent string, t taskView, turns int) []string {
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PACT_TOKEN=") && !strings.HasPrefix(kv, "PACT_AGENT_ID=") && !strings.HasPrefix(kv, "PACT_MCP_CONFIG=") {
			out = append(out, kv)
		}
	}
	return append(out, "PACT_AGENT_ID="+agent, "PACT_TASK_ID="+t.ID, "PACT_TASK_TITLE="+t.Title, "PACT_TASK_BODY="+t.Body,
		"PACT_PROJECT_ID="+t.ProjectID, "PACT_MAX_TURNS="+strconv.Itoa(turns))
}

// prompt frames the task as a request from another agent, with a
// person's answer when the task was deferred to people and resumed.
func prompt(t taskView, agent string, turns int) string {
	answer := ""
	if t.Answer != nil && *t.Answer != "" {
		answer = "\n## A person's answer\n\nThis task waited for people, and a person answered:\n\n" + *t.Answer + "\n"
	}
	return fmt.Sprintf(`You are %s, a headless agent of PACT Board. Another agent (%s) asks you to do this task in project %s.

# %s

%s
%s
---
Task id: %s. You have at most %d turns. When you are done, end your answer with a section headed
"## Handoff" saying what you did, where it is (repo, branch, PR, commit), the checks you ran, what is
left, and what needs a human. Your answer is reported to the board as the task's result.
`, agent, t.CreatedBy, t.ProjectID, t.Title, t.Body, answer, t.ID, turns)
}

// handoffHeading is a markdown heading "Handoff", the board's own rule
// (modules/board/handoff.go).
var handoffHeading = regexp.MustCompile(`(?im)^[ \t]{0,3}#{1,6}[ \t]*handoff\b`)

var turnsLine = regexp.MustCompile(`(?m)^PACT_TURNS=([0-9]+)[ \t\r]*$`)

// turnsUsed is the last PACT_TURNS=<n> line of the output, else 1.
func turnsUsed(stdout string) int {
	m := turnsLine.FindAllStringSubmatch(stdout, -1)
	if len(m) == 0 {
		return 1
	}
	n, err := strconv.Atoi(m[len(m)-1][1])
	if err != nil {
		return 1
	}
	return n
}

// resultOf is the status and result a run reports: exit 0 completed, else
// failed; the output as is when it has a Handoff and was not cut short,
// else with the runner's Handoff after it.
func resultOf(command string, o outcome) (string, string) {
	status := "completed"
	if o.exit != 0 || o.killed != "" || o.isError {
		status = "failed"
	}
	if o.subFailed {
		status = "failed"
	}
	text := withSubtasks(strings.TrimSpace(o.stdout), o.subtasks)
	if o.killed == "" && handoffHeading.MatchString(text) {
		return status, text
	}
	exit := fmt.Sprintf("exit status %d", o.exit)
	if o.killed != "" {
		exit = "killed: " + o.killed
	}
	left := "Nothing, by the runner's account: read the output above."
	if status == "failed" {
		left = "The run failed; read the output above and the log, then post the task again or do it by hand."
	}
	ran := fmt.Sprintf("`sh -c %q`", command)
	if command == "" {
		ran = "Claude Code in print mode (`claude -p`)"
	}
	h := handoffText(ran, exit, o.logPath, left)
	if text == "" {
		return status, "(the command printed nothing)\n\n" + h
	}
	return status, text + "\n\n" + h
}

// withSubtasks puts the subtasks' section before the output's Handoff, or
// at its end.
func withSubtasks(text, section string) string {
	if section == "" {
		return text
	}
	if loc := handoffHeading.FindStringIndex(text); loc != nil {
		return text[:loc[0]] + section + "\n" + text[loc[0]:]
	}
	if text == "" {
		return strings.TrimSpace(section)
	}
	return text + "\n\n" + strings.TrimSpace(section)
}

// handoffText is the Handoff the runner writes for a run.
func handoffText(ran, exit, logPath, left string) string {
	if logPath == "" {
		logPath = "none"
	}
	return fmt.Sprintf("## Handoff\n- Done: pact-runner ran %s (%s).\n- Output: stdout above; stdout and stderr in %s on the runner's machine.\n- Left / next: %s\n",
		ran, exit, logPath, left)
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf, t.cut = append(t.buf[:0:0], t.buf[over:]...), true
	}
	return len(p), nil
}

func (t *tail) String() string {
	if t.cut {
		return "(output cut: only its end is kept here)\n" + string(t.buf)
	}
	return string(t.buf)
}
