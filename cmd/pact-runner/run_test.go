package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/sdk/errs"
)

// A task delegated to the runner goes through the whole loop: claimed with
// its delegated mandate (the runs reserve lands on it), the command run
// with the task in its environment and the framed prompt on stdin, its
// turns capped at the claim's turns budget, and the task reported
// completed with the command's output, a Handoff and the turns it used.
func TestRunnerRunsADelegatedTask(t *testing.T) {
	w := newWorld(t)
	id := w.post("Fix the header", "runner-web", map[string]any{"child_limits": map[string]float64{"runs": 1, "turns": 7}})
	var delegated string
	require.NoError(t, w.DB.NewRaw(`SELECT delegated_mandate_id::text FROM tasks WHERE id = ?`, id).Scan(context.Background(), &delegated))
	cmd := fmt.Sprintf(`printf '%%s|%%s|%%s|%%s|%%s|%%s\n' "$PACT_TASK_ID" "$PACT_TASK_TITLE" "$PACT_TASK_BODY" "$PACT_MAX_TURNS" "$PACT_AGENT_ID" "${PACT_TOKEN:-no token}" >> %[1]s/env
cat > %[1]s/stdin
echo "header fixed"
echo PACT_TURNS=3`, w.dir)
	log, err := w.runOnce(w.env("runner-web", cmd))
	require.NoError(t, err, log)

	require.Equal(t, id+"|Fix the header|Body of Fix the header|7|runner-web|no token\n", w.file("env"))
	stdin := w.file("stdin")
	for _, want := range []string{"Another agent (code-web) asks you", "# Fix the header", "Body of Fix the header", id, "## Handoff"} {
		require.Contains(t, stdin, want)
	}
	require.Equal(t, "completed", w.status(id))
	res := w.result(id)
	require.True(t, strings.HasPrefix(res, "header fixed\nPACT_TURNS=3\n\n## Handoff\n"), res)
	require.Contains(t, res, "exit status 0")
	require.Contains(t, res, filepath.Join(w.dir, "logs-runner-web", id+".log"))
	kept, err := os.ReadFile(filepath.Join(w.dir, "logs-runner-web", id+".log"))
	require.NoError(t, err)
	require.Equal(t, "header fixed\nPACT_TURNS=3\n", string(kept))
	require.Equal(t, 1.0, w.used(delegated, "runs"), "the claim reserved a run on the task's delegated mandate")
	require.Equal(t, 3.0, w.used(delegated, "turns"), "the report recorded the turns the command gave")
	require.Zero(t, w.used(w.Root("runner-web"), "runs"), "the runner's root mandate was not used")
	require.Contains(t, log, "claimed; running")
	w.VerifyLog()
}

// A command's own Handoff is reported as is; a command that exits
// non-zero is reported failed, with the runner's Handoff naming the exit
// status.
func TestRunnerReportsHandoffAsIsAndFailures(t *testing.T) {
	w := newWorld(t)
	ok := w.post("Own handoff", "runner-web", nil)
	bad := w.post("Breaks", "runner-web", nil)
	cmd := `if [ "$PACT_TASK_TITLE" = Breaks ]; then echo "half done"; exit 3; fi
printf 'did it\n\n## Handoff\n- Done: all\n'`
	_, err := w.runOnce(w.env("runner-web", cmd))
	require.NoError(t, err)
	_, err = w.runOnce(w.env("runner-web", cmd))
	require.NoError(t, err)

	require.Equal(t, "completed", w.status(ok))
	require.Equal(t, "did it\n\n## Handoff\n- Done: all", w.result(ok))
	require.Equal(t, "failed", w.status(bad))
	res := w.result(bad)
	require.True(t, strings.HasPrefix(res, "half done\n\n## Handoff\n"), res)
	require.Contains(t, res, "exit status 3")
}

// --once handles at most one task, and returns at once when none waits.
func TestRunnerOnce(t *testing.T) {
	w := newWorld(t)
	cmd := fmt.Sprintf(`echo "$PACT_TASK_TITLE" >> %s/ran`, w.dir)
	log, err := w.runOnce(w.env("runner-web", cmd))
	require.NoError(t, err, log)
	require.Empty(t, w.file("ran"))

	a, b := w.post("A", "runner-web", nil), w.post("B", "runner-web", nil)
	_, err = w.runOnce(w.env("runner-web", cmd))
	require.NoError(t, err)
	require.Equal(t, "A\n", w.file("ran"))
	require.Equal(t, "completed", w.status(a))
	require.Equal(t, "submitted", w.status(b))
	_, err = w.runOnce(w.env("runner-web", cmd))
	require.NoError(t, err)
	require.Equal(t, "A\nB\n", w.file("ran"))
}

// A refused claim skips its task: limit_exceeded (no run left on the
// task's mandate) and, without PACT_RUNNER_TAKE_OPEN, an undelegated task
// is not even tried; the next task runs.
func TestRunnerSkipsRefusedClaims(t *testing.T) {
	w := newWorld(t)
	spent := w.post("No runs left", "runner-web", map[string]any{"child_limits": map[string]float64{"runs": 0}})
	open := w.post("Nobody's", "", nil)
	next := w.post("Next", "runner-web", nil)
	cmd := fmt.Sprintf(`echo "$PACT_TASK_TITLE" >> %s/ran`, w.dir)
	log, err := w.runOnce(w.env("runner-web", cmd))
	require.NoError(t, err, log)
	require.Equal(t, "Next\n", w.file("ran"))
	require.Equal(t, "completed", w.status(next))
	require.Equal(t, "submitted", w.status(spent))
	require.Equal(t, "submitted", w.status(open))
	require.Contains(t, log, "limit_exceeded")
}

// A fatal refusal stops the runner with it: its agent paused while it
// waits, the next pact_events is refused agent_paused, and run returns the
// error; the task is left alone.
func TestRunnerStopsOnFatalCode(t *testing.T) {
	w := newWorld(t)
	cmd := fmt.Sprintf(`echo ran >> %s/ran`, w.dir)
	s := w.start(w.env("runner-web", cmd))
	eventually(t, "the runner waits", func() bool { return w.listening("runner-web") }, s.log)
	w.Exec(`UPDATE agents SET status = 'paused' WHERE id = 'runner-web'`)
	id := w.post("While paused", "runner-web", nil)
	err := s.wait(t)
	require.ErrorAs(t, err, &stopped{})
	require.Equal(t, "agent_paused", codeOf(err))
	require.Contains(t, err.Error(), "runner stopped: agent_paused")
	require.Equal(t, "submitted", w.status(id))
	require.Empty(t, w.file("ran"))
}

// A runner whose agent is paused before it starts is refused its first
// call, pact_whoami, and stops there with the code, as it would later on.
func TestARunnerPausedBeforeItStartsStopsWithTheCode(t *testing.T) {
	w := newWorld(t)
	w.Exec(`UPDATE agents SET status = 'paused' WHERE id = 'runner-web'`)
	s := w.start(w.env("runner-web", fmt.Sprintf(`echo ran >> %s/ran`, w.dir)))
	err := s.wait(t)
	require.ErrorAs(t, err, &stopped{}, "%s", s.log)
	require.Equal(t, "agent_paused", codeOf(err))
	require.Empty(t, w.file("ran"))
}

// Every stop of an agent (kernel.Stops(kernel.AgentAudience)) that the
// gate answers with a code RUNNER-003 names fatal (system_halted,
// agent_paused, agent_unknown) stops a runner waiting for work with that
// code, running nothing; the gate's code is read by a call of the agent's
// own after the stop, so a stop added later is tried by construction. The
// stops answered with another code (a revoked mandate, a project left) are
// TestRunnerSwitchesToANewRootMandate's. Both system_halted and
// agent_paused must be met; no stop answers agent_unknown (an agent is
// never deleted, and a token of none is refused before the gate).
func TestRunnerStopsOnEveryFatalRefusal(t *testing.T) {
	met := map[string]bool{}
	for _, stop := range kernel.Stops(kernel.AgentAudience) {
		t.Run(string(stop), func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			var org, root string
			require.NoError(t, w.DB.NewRaw(`SELECT org_id FROM agents WHERE id = 'runner-web'`).Scan(ctx, &org))
			root = w.Root("runner-web")
			cmd := fmt.Sprintf(`echo ran >> %s/ran`, w.dir)
			s := w.start(w.env("runner-web", cmd))
			eventually(t, "the runner waits", func() bool { return w.listening("runner-web") }, s.log)
			var err error
			switch stop {
			case kernel.StopBan:
				err = w.SetAgentStatus("runner-web", "banned")
			case kernel.StopPause:
				err = w.SetAgentStatus("runner-web", "paused")
			case kernel.StopRevokeRoot:
				_, err = w.Mandates.RevokeSubtree(ctx, w.DB, uuid.MustParse(root))
			case kernel.StopRevokeLink:
				return // the runner holds only its root: revoking it is revoke-root
			case kernel.StopLeaveProject:
				err = w.SetAgentProjects("runner-web", org, []string{})
			case kernel.StopOrgHalt:
				err = w.Identity.SetOrgHalted(ctx, w.DB, org, true)
			case kernel.StopPlatformHalt:
				err = w.Identity.SetPlatformHalted(ctx, w.DB, true)
			default:
				t.Fatalf("no way to apply %q here: add one", stop)
			}
			require.NoError(t, err)
			_, err = w.Call("runner-web", "pact_whoami", map[string]any{"mandate_id": root})
			code := string(errs.CodeOf(err))
			if code != "system_halted" && code != "agent_paused" && code != "agent_unknown" {
				// Not a fatal code: what the runner does is another test's.
				_ = s.stop(t)
				return
			}
			met[code] = true
			// It stops within a second; the bound only keeps a runner that
			// goes on from holding the test for wait's two minutes.
			err = s.waitWithin(t, 20*time.Second)
			require.ErrorAs(t, err, &stopped{}, "%s (%s): %s", stop, code, s.log)
			require.Equal(t, code, codeOf(err), "%s", stop)
			require.Empty(t, w.file("ran"), "%s: nothing is run", stop)
		})
	}
	require.True(t, met["system_halted"] && met["agent_paused"], "the stops met both: %v", met)
}

// The runner refuses to run as an agent that is not a Runner.
func TestRunnerRefusesOtherClients(t *testing.T) {
	w := newWorld(t)
	_, err := w.runOnce(w.env("code-web", "true"))
	require.ErrorContains(t, err, `agent code-web is a "code" client, not a runner`)
}

// Configuration comes from the env file, the environment winning over it.
func TestRunnerReadsTheEnvFile(t *testing.T) {
	w := newWorld(t)
	id := w.post("From the file", "runner-web", nil)
	file := filepath.Join(w.dir, "runner.env")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf("# written by pact-connect\nPACT_URL=%s\nexport PACT_TOKEN='%s'\n"+
		"PACT_AGENT_ID=runner-web\nPACT_RUNNER_COMMAND=\"echo from-file\"\n", w.URL, w.Token("runner-web"))), 0o600))
	err := run(context.Background(), []string{"--once", "--env-file", file}, getenv(map[string]string{
		"PACT_RUNNER_LOG_DIR": filepath.Join(w.dir, "logs"), "PACT_RUNNER_COMMAND": "echo from-env"}), &logtest.Buffer{})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(w.result(id), "from-env\n"), w.result(id))

	err = run(context.Background(), nil, getenv(map[string]string{"PACT_URL": w.URL}), &logtest.Buffer{})
	require.ErrorContains(t, err, "PACT_TOKEN is not set")
}

// --help and docs/runner.md name every setting the runner reads.
func TestHelpAndDocsNameEverySetting(t *testing.T) {
	var help logtest.Buffer
	_, err := loadConfig([]string{"--help"}, getenv(nil), &help)
	require.ErrorIs(t, err, flag.ErrHelp)
	doc, err := os.ReadFile("../../docs/runner.md")
	require.NoError(t, err)
	for _, s := range settings() {
		require.Contains(t, help.String(), "  "+s.name+" (default", s.name)
		require.Contains(t, string(doc), "`"+s.name+"`", "docs/runner.md does not name %s", s.name)
	}
	for _, f := range []string{"-env-file", "-command", "-once"} {
		require.Contains(t, help.String(), f)
	}
}

// A token the board does not accept stops the runner with a clear error.
func TestRunnerStopsOnABadToken(t *testing.T) {
	w := newWorld(t)
	env := w.env("runner-web", "true")
	env["PACT_TOKEN"] = "pact_not-a-token"
	_, err := w.runOnce(env)
	require.ErrorAs(t, err, &stopped{})
	require.ErrorContains(t, err, "Unauthorized")
}

// A runner never works on production: with only production projects left
// (a person made its project production after it was hired) it stops.
func TestRunnerRefusesProduction(t *testing.T) {
	w := newWorld(t)
	id := w.post("On production", "runner-web", nil)
	w.Exec(`UPDATE projects SET production = true WHERE id = 'web'`)
	_, err := w.runOnce(w.env("runner-web", "echo ran"))
	require.ErrorAs(t, err, &stopped{})
	require.ErrorContains(t, err, "a Runner never works on production")
	require.Equal(t, "submitted", w.status(id))
}

// agent_unknown, which RUNNER-003 names fatal, cannot reach a runner on
// this board, so TestRunnerStopsOnEveryFatalRefusal meets no stop that
// answers it: the MCP transport admits a call at /mcp/a/<agent> only with
// a live token of that agent (a runner named for an agent with no row is
// refused 401 before the gate), and the row of an agent that holds a
// mandate cannot be removed (mandates are never deleted and name their
// holder), nor can it while it has a token. Should either change, this
// fails, and agent_unknown must be tried like the other fatal codes.
func TestARunnerNeverMeetsAnUnknownAgent(t *testing.T) {
	w := newWorld(t)
	env := w.env("runner-web", "echo ran")
	env["PACT_AGENT_ID"] = "ghost"
	_, err := w.runOnce(env)
	require.ErrorAs(t, err, &stopped{})
	require.ErrorContains(t, err, "Unauthorized", "refused at the transport, not by the gate")
	require.NotEqual(t, "agent_unknown", codeOf(err))

	// The runner's agent holds a mandate, which names it and is never deleted.
	ctx := context.Background()
	require.NotEmpty(t, w.Root("runner-web"))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = 'mandates'::regclass
		AND confrelid = 'agents'::regclass`), "a mandate's holder is an agent's row")
	tx, err := w.DB.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `DELETE FROM mandates WHERE holder = 'runner-web'`)
	_ = tx.Rollback()
	require.Error(t, err, "mandates are never deleted")
	require.Positive(t, w.Count(`SELECT count(*) FROM mandates WHERE holder = 'runner-web'`))
	tx, err = w.DB.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `DELETE FROM agents WHERE id = 'runner-web'`)
	_ = tx.Rollback()
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr)
	require.Equal(t, "23503", pgErr.Code, "a foreign key keeps the agent's row: %v", err)
}

// A message to the runner's agent is read, which marks it read, and
// logged for the operator: unread, it would wake every pact_events at
// once, and the runner would poll instead of waiting (docs/runner.md).
func TestRunnerReadsTheMessagesThatWakeIt(t *testing.T) {
	w := newWorld(t)
	w.Agent("ana", kerneltest.AgentInput{ID: "code-api", Client: "code", Projects: []string{"web"}})
	id := w.post("Not the runner's", "code-api", nil)
	s := w.start(w.env("runner-web", "true"))
	eventually(t, "the runner waits in pact_events", func() bool { return w.listening("runner-web") }, s.log)
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web"), "to": "runner-web",
		"body": "The header is blue now."})
	unread := func() int {
		return w.Count(`SELECT count(*) FROM task_messages WHERE to_agent = 'runner-web' AND read_at IS NULL`)
	}
	// Within 15 s: a runner that does not read it waits 5 s between calls
	// for good, and the message stays unread.
	require.Eventually(t, func() bool { return unread() == 0 }, 15*time.Second, 20*time.Millisecond,
		"the runner read the message: %s", s.log)
	eventually(t, "the runner logged it", func() bool { return s.log.Contains("The header is blue now.") }, s.log)
	eventually(t, "the runner waits in pact_events again", func() bool { return w.listening("runner-web") }, s.log)
	w.requireNoPolling(s)
	require.NoError(t, s.stop(t))
}

// A task a person resumed after it was deferred to them reaches the
// session with the person's answer, which the board gives on the task.
func TestRunnerGivesTheSessionAPersonsAnswer(t *testing.T) {
	w := newWorld(t)
	id := w.post("Deploy the site", "runner-web", nil)
	w.Exec(`UPDATE tasks SET answer = 'Yes, deploy it on Friday.' WHERE id = ?`, id)
	log, err := w.runOnce(w.env("runner-web", fmt.Sprintf("cat > %s/stdin", w.dir)))
	require.NoError(t, err, log)
	stdin := w.file("stdin")
	require.Contains(t, stdin, "## A person's answer")
	require.Contains(t, stdin, "Yes, deploy it on Friday.")

	plain := w.post("Fix the footer", "runner-web", nil)
	log, err = w.runOnce(w.env("runner-web", fmt.Sprintf("cat > %s/stdin", w.dir)))
	require.NoError(t, err, log)
	require.Equal(t, "completed", w.status(plain))
	require.NotContains(t, w.file("stdin"), "A person's answer", "a task nobody answered has no answer section")
}

// While the board cannot be reached, the runner waits twice as long before
// each try, from a second up to 30 seconds.
func TestTheRunnerBacksOffToThirtySeconds(t *testing.T) {
	var waits []time.Duration
	for d := time.Second; len(waits) < 8; d = nextBackoff(d) {
		waits = append(waits, d)
	}
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
		30 * time.Second, 30 * time.Second, 30 * time.Second}, waits)
}
