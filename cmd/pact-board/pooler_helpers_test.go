package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/people"
)

// poolerBoard is the real board (NewMain, as main runs it) on env, with
// agents made directly on the database at dsn: code-web and code-api as
// callEveryTool wants them, and w1…w4 that call every tool at once.
type poolerBoard struct {
	logs     *logtest.Buffer
	roots    map[string]string
	sessions map[string]*mcp.ClientSession
}

// poolerWorkers are the agents that call every tool concurrently.
var poolerWorkers = []string{"w1", "w2", "w3", "w4"}

func startPoolerBoard(t *testing.T, dsn string, env map[string]string) *poolerBoard {
	t.Helper()
	ctx := context.Background()
	base, logs, _ := startBoard(t, env)
	d, err := db.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	b := &poolerBoard{logs: logs, roots: map[string]string{}, sessions: map[string]*mcp.ClientSession{}}
	for _, id := range append([]string{"code-web", "code-api"}, poolerWorkers...) {
		delegations := 3
		r, err := registerAgent(ctx, d, ident, "ana", people.AgentInput{ID: id, Client: "code", Projects: []string{"web"},
			Delegations: &delegations, Scope: []string{"task.read@project:web", "task.post@project:web",
				"task.work@project:web", "context.write@project:web", "pact.read@project:web", "pact.write@project:web"}})
		require.NoError(t, err)
		b.roots[id] = r.RootMandateID.String()
		b.sessions[id] = connect(t, base, id, r.Token).cs
	}
	return b
}

// call calls a tool as agent and returns its structured answer, or the
// refusal's text as the error.
func (b *poolerBoard) call(agent, name string, args map[string]any) (map[string]any, error) {
	res, err := b.sessions[agent].CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return nil, fmt.Errorf("%s", text)
	}
	out, _ := res.StructuredContent.(map[string]any)
	return out, nil
}

// everyToolSucceeds calls every tool as code-web, then every tool as each
// worker at once, and requires every call to succeed (a pooler in
// transaction mode hands each transaction whichever server connection is
// free, which concurrent calls make likely to differ).
func (b *poolerBoard) everyToolSucceeds(t *testing.T) {
	t.Helper()
	var mu sync.Mutex
	failed, calls := map[string]int{}, 0
	caller := func(agent string) func(string, map[string]any) map[string]any {
		return func(name string, args map[string]any) map[string]any {
			out, err := b.call(agent, name, args)
			mu.Lock()
			defer mu.Unlock()
			calls++
			if err != nil {
				failed[name+": "+err.Error()]++
			}
			return out
		}
	}
	callEveryTool(b.roots, caller("code-web"))
	var wg sync.WaitGroup
	for _, w := range poolerWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 {
				callEveryTool(map[string]string{"code-web": b.roots[w]}, caller(w))
			}
		}()
	}
	wg.Wait()
	var report []string
	for f, n := range failed {
		report = append(report, fmt.Sprintf("%dx %s", n, f))
	}
	sort.Strings(report)
	require.Empty(t, report, "of %d calls, these failed; the board logged:\n%s", calls, b.logs)
	for _, bad := range []string{"tool call failed", "worker failed"} {
		require.NotContains(t, b.logs.String(), bad)
	}
	t.Logf("%d tool calls, every one answered", calls)
}

// wake has code-api wait (pact_wait, up to seconds) on a task delegated to
// it while code-web messages it a second later, and returns how long the
// wait took; the message must come back either way.
func (b *poolerBoard) wake(t *testing.T, seconds int) time.Duration {
	t.Helper()
	post, err := b.call("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Wake me",
		"mandate_id": b.roots["code-web"], "delegate_to": "code-api"})
	require.NoError(t, err)
	type answer struct {
		out  map[string]any
		err  error
		took time.Duration
	}
	done := make(chan answer, 1)
	go func() {
		start := time.Now()
		out, err := b.call("code-api", "pact_wait", map[string]any{"mandate_id": post["delegated_mandate_id"], "seconds": seconds})
		done <- answer{out, err, time.Since(start)}
	}()
	time.Sleep(time.Second)
	_, err = b.call("code-web", "pact_message", map[string]any{"task_id": post["task_id"],
		"mandate_id": b.roots["code-web"], "to": "code-api", "body": "Ready?"})
	require.NoError(t, err)
	a := <-done
	require.NoError(t, a.err)
	require.Len(t, a.out["messages"], 1, "the message comes back, woken or at the deadline")
	return a.took
}

// logged reports whether the board logged a line containing s.
func (b *poolerBoard) logged(s string) bool { return strings.Contains(b.logs.String(), s) }
