package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mcpserve/plaincall"
	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/modules/people"
)

// The tests of this file stop the PostgreSQL under a running board, so each
// runs on a cluster of its own: the test binary's shared one is never
// stopped (docs/operations.md, "When PostgreSQL restarts or runs out of
// connections").

// faultBoard is the real board in-process on its own PostgreSQL, with a
// poster (code-web) and three runners, each a real MCP client.
type faultBoard struct {
	pg     *pgcluster.Throwaway
	base   string
	tokens map[string]string
	roots  map[string]string
	agents map[string]*mcp.ClientSession
}

var faultRunners = []string{"r1", "r2", "r3"}

func startFaultBoard(t *testing.T, env map[string]string) *faultBoard {
	t.Helper()
	ctx := context.Background()
	pg, err := pgcluster.StartThrowaway(ctx)
	require.NoError(t, err)
	t.Cleanup(pg.Destroy)
	require.NoError(t, pg.CreateDatabase(ctx, "pact", ""))
	vars := map[string]string{"DATABASE_URL": pg.DSN("pact"), "PACT_LOG_LEVEL": "info"}
	for k, v := range env {
		vars[k] = v
	}
	base, _, _ := startBoard(t, vars)

	d, err := db.Open(ctx, pg.DSN("pact"))
	require.NoError(t, err)
	defer d.Close()
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	b := &faultBoard{pg: pg, base: base, tokens: map[string]string{}, roots: map[string]string{},
		agents: map[string]*mcp.ClientSession{}}
	for _, id := range append([]string{"code-web"}, faultRunners...) {
		r, err := registerAgent(ctx, d, ident, "ana", people.AgentInput{ID: id, Client: "runner", Projects: []string{"web"},
			Scope: []string{"task.read@project:web", "task.post@project:web", "task.work@project:web", "context.write@project:web"}})
		require.NoError(t, err)
		b.tokens[id], b.roots[id] = r.Token, r.RootMandateID.String()
		b.agents[id] = connect(t, base, id, r.Token).cs
	}
	return b
}

// call calls a tool and returns its JSON answer, or the refusal or the
// transport's error.
func (b *faultBoard) call(ctx context.Context, agent, tool string, args map[string]any) (map[string]any, error) {
	res, err := b.agents[agent].CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, fmt.Errorf("%s: %s", tool, text)
	}
	if res.IsError {
		return out, fmt.Errorf("%s refused: %s", tool, text)
	}
	return out, nil
}

// outageAnswer posts a tool call as plain HTTP and returns the status and
// the body: what any client, not only the MCP SDK, reads during an outage.
func (b *faultBoard) outageAnswer(t *testing.T, agent string) (int, map[string]any) {
	t.Helper()
	status, out, err := plainCall(b.base, agent, b.tokens[agent], "pact_whoami", map[string]any{})
	require.NoError(t, err)
	return status, out
}

// plainCall posts one stateless tools/call (plaincall.Call) and returns
// the HTTP status and the body.
func plainCall(base, agent, token, tool string, args map[string]any) (int, map[string]any, error) {
	return plaincall.Call(context.Background(), nil, base, agent, token, tool, args)
}

// held is one held wait's outcome.
type held struct {
	name string
	out  map[string]any
	err  error
	took time.Duration
}

// TestNoLostWakeupAcrossAPostgreSQLRestart (REL-020, REL-021): seven held
// waits (a pact_wait and a pact_events per runner, a pact_wait of the
// poster) are held while PostgreSQL stops (-m fast, then -m immediate on a
// fresh board); calls during the outage are refused unavailable with the
// message that says to retry; the board answers again within 10 s of the
// server's return without being restarted; the messages and the task
// committed right after it are returned by every held wait.
func TestNoLostWakeupAcrossAPostgreSQLRestart(t *testing.T) {
	for _, mode := range []string{"fast", "immediate"} {
		t.Run(mode, func(t *testing.T) { restartUnderWaits(t, mode) })
	}
}

func restartUnderWaits(t *testing.T, mode string) {
	b := startFaultBoard(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	root := func(id string) map[string]any { return map[string]any{"mandate_id": b.roots[id]} }
	t0, err := b.call(ctx, "code-web", "pact_post", map[string]any{"project_id": "web", "title": "Thread",
		"mandate_id": b.roots["code-web"]})
	require.NoError(t, err)
	task := t0["task_id"].(string)
	since := map[string]float64{}
	for _, r := range faultRunners {
		out, err := b.call(ctx, r, "pact_events", map[string]any{"mandate_id": b.roots[r], "seconds": 0})
		require.NoError(t, err)
		since[r] = out["next_since"].(float64)
	}

	results := make(chan held, 7)
	hold := func(name, agent, tool string, args map[string]any) {
		go func() {
			start := time.Now()
			out, err := b.call(ctx, agent, tool, args)
			results <- held{name: name, out: out, err: err, took: time.Since(start)}
		}()
	}
	hold("code-web pact_wait", "code-web", "pact_wait", map[string]any{"mandate_id": b.roots["code-web"], "seconds": 50})
	for _, r := range faultRunners {
		hold(r+" pact_wait", r, "pact_wait", map[string]any{"mandate_id": b.roots[r], "seconds": 50})
		hold(r+" pact_events", r, "pact_events", map[string]any{"mandate_id": b.roots[r], "seconds": 50, "since": since[r]})
	}
	time.Sleep(500 * time.Millisecond) // every wait is held on the board

	down := time.Now()
	require.NoError(t, b.pg.Down(mode))
	refused := 0
	for time.Since(down) < time.Second {
		status, body := b.outageAnswer(t, "code-web")
		require.Equal(t, http.StatusServiceUnavailable, status, "%v", body)
		require.Equal(t, map[string]any{"error": "unavailable", "message": db.DownMessage}, body)
		refused++
		_, err := b.call(ctx, "code-web", "pact_whoami", nil)
		require.ErrorContains(t, err, "Service Unavailable", "an MCP client is told to retry")
		refused++
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, b.pg.Up(ctx))
	up := time.Now()

	// Committed as soon as the board answers, while its listener is most
	// likely still reconnecting: only the re-check on reconnect can see it.
	for {
		_, err = b.call(ctx, "code-web", "pact_post", map[string]any{"project_id": "web", "title": "After the restart",
			"mandate_id": b.roots["code-web"]})
		if err == nil {
			break
		}
		require.Less(t, time.Since(up), 10*time.Second, "the board did not recover by itself: %v", err)
		refused++
		time.Sleep(20 * time.Millisecond)
	}
	recovered := time.Since(up)
	for _, r := range faultRunners {
		_, err = b.call(ctx, "code-web", "pact_message", map[string]any{"task_id": task, "to": r,
			"body": "around the " + mode + " restart", "mandate_id": b.roots["code-web"]})
		require.NoError(t, err)
	}
	args := root("r1")
	args["task_id"], args["body"] = task, "back after the "+mode+" restart"
	_, err = b.call(ctx, "r1", "pact_message", args)
	require.NoError(t, err)
	committed := time.Now()

	for range 7 {
		var h held
		select {
		case h = <-results:
		case <-time.After(20 * time.Second):
			t.Fatalf("a held wait did not return within 20s of the commit: lost wakeup")
		}
		require.NoError(t, h.err, "%s", h.name)
		require.NotEqual(t, true, h.out["timed_out"], "%s timed out: lost wakeup", h.name)
		if strings.HasSuffix(h.name, "pact_wait") {
			require.NotEmpty(t, h.out["messages"], "%s: %v", h.name, h.out)
		} else {
			require.True(t, len(h.out["tasks"].([]any)) > 0 || len(h.out["messages"].([]any)) > 0, "%s: %v", h.name, h.out)
		}
	}
	t.Logf("-m %s: outage %v; %d calls refused unavailable; the board answered %v after PostgreSQL was back; "+
		"7/7 held waits returned what was committed, the last %v after the commit",
		mode, up.Sub(down).Round(time.Millisecond), refused, recovered.Round(time.Millisecond),
		time.Since(committed).Round(time.Millisecond))
}

// TestPoolRunsOutUnderABoard (REL-021): a board with 2 pool connections
// takes 20 concurrent calls while another session holds a lock on tasks
// for 4 s. Every call ends within the bound: answered, or refused
// unavailable because no connection was free in time (busy) or its
// statement waited past PACT_DB_STATEMENT_TIMEOUT; none hangs, and the
// board serves normally once the lock is gone.
func TestPoolRunsOutUnderABoard(t *testing.T) {
	b := startE2E(t, map[string]string{"PACT_DB_MAX_CONNS": "2", "PACT_DB_ACQUIRE_TIMEOUT": "1",
		"PACT_DB_STATEMENT_TIMEOUT": "2"})
	ctx := context.Background()
	lock, err := b.d.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = lock.ExecContext(ctx, "LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE")
	require.NoError(t, err)
	unlock := time.AfterFunc(4*time.Second, func() { _ = lock.Rollback() })
	defer unlock.Stop()

	type answer struct {
		status int
		body   map[string]any
		err    error
	}
	answers := make(chan answer, 20)
	start := time.Now()
	for i := range 20 {
		go func() {
			agent := []string{"code-web", "runner-web"}[i%2]
			status, body, err := plainCall(b.base, agent, b.tokens[agent], "pact_list",
				map[string]any{"mandate_id": b.roots[agent], "project_id": "web"})
			answers <- answer{status, body, err}
		}()
	}
	counts := map[string]int{}
	for range 20 {
		var a answer
		select {
		case a = <-answers:
		case <-time.After(20 * time.Second):
			t.Fatalf("calls on an exhausted pool did not end within 20s: deadlock (so far %v)", counts)
		}
		require.NoError(t, a.err)
		if a.status == http.StatusOK && a.body["isError"] == nil {
			counts["ok"]++
			continue
		}
		require.Equal(t, "unavailable", a.body["error"], "status %d: %v", a.status, a.body)
		msg, _ := a.body["message"].(string)
		require.Contains(t, []string{db.BusyMessage, db.TimeoutMessage}, msg)
		counts[fmt.Sprintf("%d %s", a.status, msg)]++
	}
	took := time.Since(start)
	t.Logf("20 calls on 2 connections, tasks locked for 4s: all ended in %v: %v", took.Round(time.Millisecond), counts)
	require.Less(t, took, 15*time.Second)

	unlock.Stop()
	_ = lock.Rollback()
	status, body, err := plainCall(b.base, "code-web", b.tokens["code-web"], "pact_list",
		map[string]any{"mandate_id": b.roots["code-web"], "project_id": "web"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.Nil(t, body["isError"], "%v", body)
}
