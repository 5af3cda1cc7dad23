package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
)

// outcome is how a run ended.
type outcome struct {
	exit     int    // the command's exit status (-1: killed or never started)
	stdout   string // what it printed, the result
	killed   string // why the runner killed it, or ""
	logPath  string // where the output is kept
	duration time.Duration

	subtasks  string // the subtasks' section of the report, or ""
	subFailed bool   // a subtask was not posted or did not complete

	// claude is Claude Code's JSON result when stdout was one (then stdout
	// is its text); isError says it ended in error.
	claude  *claudeResult
	isError bool
}

// runTask runs claimed task t under mandate m and reports how it went.
// Heartbeats keep the claim; claim_lost (or the task's mandate refused)
// kills the command; ctx ending gives it the grace period, then kills it.
func (r *runner) runTask(ctx context.Context, log hclog.Logger, t taskView, m string, budget map[string]float64) error {
	turns := r.cfg.MaxTurns
	if b, ok := budget["turns"]; ok && int(b) < turns {
		turns = int(b)
	}
	usd, capped := budget["usd"]
	log.Info("claimed; running", "mandate", m, "max_turns", turns)
	switch {
	case turns < 1:
		return r.report(ctx, log, t, m, "failed", "No turns left in the mandate's budget; nothing ran.\n\n"+
			handoffText("nothing (no turns left)", "not run", "", "A person raises the turns budget, or posts it again."), nil)
	case capped && usd <= 0:
		return r.report(ctx, log, t, m, "failed", "No money left in the mandate's budget (usd); nothing ran.\n\n"+
			handoffText("nothing (no usd left)", "not run", "", "A person raises the usd budget, or posts it again."), nil)
	}
	session, err := r.openSession(ctx, t, m)
	if err != nil {
		if c := codeOf(err); c == "claim_lost" || isMandate(c) {
			log.Warn("the claim is gone before the run started; not reporting", "error", err)
			return nil
		}
		log.Error("cannot start the run's session", "error", err)
		return r.report(ctx, log, t, m, "failed", "The run's session could not start: "+err.Error()+"\n\n"+
			handoffText("nothing (no session)", "not run", "", "Read the runner's log, then post the task again."), nil)
	}
	defer session.Close()
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	why := make(chan string, 1)
	kill := func(reason string) {
		select {
		case why <- reason:
		default:
		}
		cancel()
	}
	stopBeat := r.heartbeat(runCtx, log, t, m, kill)
	stopGrace := r.grace(ctx, runCtx, log, kill)
	out := r.execute(runCtx, log, t, session, turns, usd)
	used := map[string]float64{"turns": float64(turnsUsed(out.stdout))}
	if out.claude = parseClaude(out.stdout); out.claude != nil {
		out.stdout, out.isError = out.claude.Result, out.claude.IsError
		used["turns"], used["usd"] = float64(max(out.claude.NumTurns, 1)), out.claude.TotalCostUSD
	}
	if out.exit >= 0 && runCtx.Err() == nil {
		// The heartbeat goes on while the subtasks are waited for.
		section, ok := r.subtasks(runCtx, log, t, turns, int(used["turns"]))
		out.subtasks, out.subFailed = section, !ok
	}
	stopBeat()
	stopGrace()
	select {
	case out.killed = <-why:
	default:
	}
	if out.killed == "" && out.exit == -2 {
		out.killed = fmt.Sprintf("it ran past PACT_RUNNER_RUN_TIMEOUT_MINUTES (%s)", r.cfg.RunTimeout)
	}
	if out.killed == lostClaim {
		log.Warn("claim lost: the run was killed; not reporting", "log", out.logPath)
		return nil
	}
	status, text := resultOf(r.cfg.Command, out)
	log.Info("run ended", "status", status, "exit", out.exit, "killed", out.killed, "took", out.duration.Round(time.Millisecond))
	var result any = text
	if rep := out.claude.report(); rep != nil && t.Action == "report.brief" {
		result = briefResult(text, rep)
	}
	return r.report(ctx, log, t, m, status, result, used)
}

const lostClaim = "claim lost"

// heartbeatLost reports whether a heartbeat's refusal code means the task
// is no longer the run's: the claim was lost, the mandate refused (the task
// canceled and its mandate revoked), or the task is out of the agent's
// sight. Any other failure is logged and the run goes on.
func heartbeatLost(code string) bool {
	return code == "claim_lost" || isMandate(code) || code == "not_found"
}

// heartbeat renews the claim every PACT_RUNNER_HEARTBEAT_SECONDS until the
// returned stop is called; claim_lost, or a mandate refusal (the task was
// canceled and its mandate revoked), kills the run.
func (r *runner) heartbeat(ctx context.Context, log hclog.Logger, t taskView, m string, kill func(string)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(r.cfg.Heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			err := r.board.call(ctx, "pact_report", map[string]any{"task_id": t.ID, "mandate_id": m, "status": "working"}, nil)
			code := codeOf(err)
			switch {
			case err == nil:
				log.Debug("heartbeat")
			case heartbeatLost(code):
				log.Warn("the claim is gone; killing the run", "error", err)
				kill(lostClaim)
				return
			default:
				log.Warn("heartbeat failed", "error", err)
			}
		}
	}()
	return func() { close(done); <-finished }
}

// grace kills the run PACT_RUNNER_GRACE_SECONDS after ctx (the runner's)
// ends, unless the returned stop is called first.
func (r *runner) grace(ctx, runCtx context.Context, log hclog.Logger, kill func(string)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-done:
			return
		case <-runCtx.Done():
			return
		case <-ctx.Done():
		}
		log.Info("stopping: the running task has a grace period", "grace", r.cfg.Grace)
		t := time.NewTimer(r.cfg.Grace)
		defer t.Stop()
		select {
		case <-done:
		case <-runCtx.Done():
		case <-t.C:
			kill(fmt.Sprintf("the runner was stopped and the run did not end within PACT_RUNNER_GRACE_SECONDS (%s)", r.cfg.Grace))
		}
	}()
	return func() { close(done); <-finished }
}

// report closes the task, trying again for about a minute when the board
// fails to answer; a refusal is logged, and a fatal one returned.
func (r *runner) report(ctx context.Context, log hclog.Logger, t taskView, m, status string, result any, usage map[string]float64) error {
	ctx = context.WithoutCancel(ctx)
	args := map[string]any{"task_id": t.ID, "mandate_id": m, "status": status, "result": result}
	if len(usage) > 0 {
		args["usage"] = usage
	}
	var err error
	for wait := 100 * time.Millisecond; ; wait *= 2 {
		callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = r.board.call(callCtx, "pact_report", args, nil)
		cancel()
		if err == nil {
			log.Info("reported", "status", status, "usage", usage)
			return nil
		}
		if !transient(err) || wait > 30*time.Second {
			break
		}
		// Nothing was recorded (the board answers a failed call with
		// nothing done): report again.
		log.Warn("report failed; trying again", "error", err, "in", wait)
		time.Sleep(wait)
	}
	log.Error("the report was not recorded", "status", status, "error", err)
	if isFatal(codeOf(err)) {
		return stopped{err}
	}
	return nil
}

// logFile is where task id's output is kept: a file the runner has just
// created in its log directory (logdir.go).
func (r *runner) logFile(id string) (*os.File, string, error) {
	f, p, err := openNew(r.cfg.LogDir, id+".log")
	if err != nil {
		return nil, "", errors.Join(errors.New("open the run's log"), err)
	}
	return f, p, nil
}
