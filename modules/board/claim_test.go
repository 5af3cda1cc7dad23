package board_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

func TestFiftyConcurrentClaimsHaveExactlyOneWinner(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Race", nil)
	const n = 50
	agents := make([]string, n)
	for i := range agents {
		agents[i] = "racer-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		w.agent(agents[i], "code", nil, "web")
	}
	var wg sync.WaitGroup
	codes := make([]errs.Code, n)
	for i, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.Call(a, "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root(a)})
			codes[i] = errs.CodeOf(err)
		}()
	}
	wg.Wait()
	won := 0
	for _, c := range codes {
		switch c {
		case "":
			won++
		case errs.AlreadyClaimed:
		default:
			t.Fatalf("unexpected refusal %s", c)
		}
	}
	require.Equal(t, 1, won)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, id))
	require.Equal(t, n-1, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_claim' AND outcome = 'already_claimed'`))
	w.VerifyLog()
}

// TestConcurrentExclusiveClaimsByOneAgentLeaveItOneTask: one agent claims
// many open tasks at once, each claim exclusive. The claims take turns on
// the agent's row and each reads the agent's working tasks after its turn
// comes, so exactly one wins and every other is agent_busy (or finds its
// task taken by nobody else: there is no other claimer). Nothing else in a
// call serializes an agent's calls: last_seen is stamped apart from them.
func TestConcurrentExclusiveClaimsByOneAgentLeaveItOneTask(t *testing.T) {
	w := newWorld(t)
	w.agent("runner-solo", "runner", nil, "web")
	const n = 12
	ids := make([]string, n)
	for i := range ids {
		ids[i] = w.post("code-web", "web", "Solo "+string(rune('a'+i)), nil)
	}
	for round := range 3 {
		var wg sync.WaitGroup
		codes := make([]errs.Code, n)
		start := make(chan struct{})
		for i, id := range ids {
			wg.Go(func() {
				<-start
				_, err := w.Call("runner-solo", "pact_claim",
					map[string]any{"task_id": id, "mandate_id": w.Root("runner-solo"), "exclusive": true})
				codes[i] = errs.CodeOf(err)
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for _, c := range codes {
			switch c {
			case "":
				won++
			case errs.AgentBusy:
			default:
				t.Fatalf("round %d: unexpected refusal %s", round, c)
			}
		}
		require.Equal(t, 1, won, "round %d: %v", round, codes)
		require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE assignee = 'runner-solo' AND status = 'working'`),
			"round %d", round)
		// Free the agent for the next round: the task it won goes back.
		w.Exec(`UPDATE tasks SET assignee = NULL, assignee_mandate_id = NULL, status = 'submitted'
			WHERE assignee = 'runner-solo'`)
	}
	w.VerifyLog()
}

func TestClaimRefusals(t *testing.T) {
	w := newWorld(t)
	open := w.post("code-web", "web", "Open", nil)
	delegated := w.post("code-web", "web", "For gemini", map[string]any{"delegate_to": "gemini-web"})
	deploy := w.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	claim := func(agent, task, mandateID string, extra map[string]any) map[string]any {
		a := map[string]any{"task_id": task, "mandate_id": mandateID}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	w.Refused(errs.InvalidRequest, "runner-web", "pact_claim", claim("runner-web", open, w.Root("runner-web"), map[string]any{"reserve": map[string]any{"runs": "x"}}))
	w.Refused(errs.NotFound, "code-web", "pact_claim", claim("code-web", "not-a-uuid", w.Root("code-web"), nil))
	w.Refused(errs.NotFound, "code-web", "pact_claim", claim("code-web", "00000000-0000-4000-8000-000000000000", w.Root("code-web"), nil))
	w.Refused(errs.ScopeExceeded, "chat-web", "pact_claim", claim("chat-web", open, w.Root("chat-web"), nil))
	w.Refused(errs.WrongAgent, "code-web", "pact_claim", claim("code-web", delegated, w.Root("code-web"), nil))
	w.Refused(errs.ApprovalPending, "code-web", "pact_claim", claim("code-web", deploy, w.Root("code-web"), nil))
	brief := w.post("code-web", "web", "Brief", map[string]any{"action": "report.brief"})
	e := w.Refused(errs.ScopeExceeded, "runner-web", "pact_claim", claim("runner-web", brief, w.Root("runner-web"), nil))
	require.Equal(t, w.Root("runner-web"), e.MandateID)

	// The budget: reserving more runs than are left refuses and leaves the task free.
	w.Refused(errs.LimitExceeded, "runner-web", "pact_claim", claim("runner-web", open, w.Root("runner-web"), map[string]any{"reserve": map[string]any{"runs": 4}}))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND assignee IS NULL`, open))
	out := w.OK("runner-web", "pact_claim", claim("runner-web", open, w.Root("runner-web"), map[string]any{"reserve": map[string]any{"runs": 1}}))
	require.Equal(t, map[string]any{"runs": 2.0, "turns": 100.0}, out["budget"])

	second := w.post("code-web", "web", "Second", nil)
	e = w.Refused(errs.AgentBusy, "runner-web", "pact_claim", claim("runner-web", second, w.Root("runner-web"), map[string]any{"exclusive": true}))
	require.Contains(t, e.Message, open)
	w.Refused(errs.AlreadyClaimed, "code-web", "pact_claim", claim("code-web", open, w.Root("code-web"), nil))

	// Another organization's task answers like a missing one.
	w.Exec(`INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role) VALUES ('bo', 'acme', 'Bo', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	w.Exec(`UPDATE tasks SET project_id = 'rocket' WHERE id = ?`, second)
	other := w.Refused(errs.NotFound, "code-web", "pact_claim", claim("code-web", second, w.Root("code-web"), nil))
	require.Equal(t, "task "+second+" does not exist", other.Message)
	require.Zero(t, w.Count(`SELECT count(*) FROM entries WHERE org_id = 'acme'`), "the refusal is logged in the caller's organization only")
	w.VerifyLog()
}

func TestStaleClaimsAreReleased(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Long job", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	// 29 minutes of silence keeps the claim.
	w.Exec(`UPDATE task_activity SET at = now() - interval '29 minutes' WHERE task_id = ?`, id)
	w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND assignee = 'gemini-web'`, id))
	// A heartbeat renews it; 31 minutes after the last one releases it.
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "working", "mandate_id": w.Root("gemini-web")})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_activity WHERE task_id = ? AND at > now() - interval '1 minute'`, id))
	w.Exec(`UPDATE task_activity SET at = now() - interval '31 minutes' WHERE task_id = ?`, id)
	list := w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})
	require.Len(t, list["tasks"], 1, "released tasks are open again")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'task.release_stale' AND task_id = ?`, id))
	e := w.Refused(errs.ClaimLost, "gemini-web", "pact_report", map[string]any{"task_id": id, "status": "working", "mandate_id": w.Root("gemini-web")})
	require.Contains(t, e.Message, "no longer claimed by gemini-web")
	w.VerifyLog()
}

// The stale-claim scan reads heartbeat rows, not tasks (migration 012): so
// every working task has exactly one, and no other task has any, whichever
// way it stops working.
func TestOnlyWorkingTasksHaveAHeartbeat(t *testing.T) {
	w := newWorld(t)
	beats := func() int { return w.Count(`SELECT count(*) FROM task_activity`) }
	working := func() int {
		return w.Count(`SELECT count(*) FROM tasks t WHERE t.status = 'working'
			AND EXISTS (SELECT 1 FROM task_activity a WHERE a.task_id = t.id AND a.agent_id = t.assignee)`)
	}
	report := func(id, status string) {
		args := map[string]any{"task_id": id, "status": status, "mandate_id": w.Root("gemini-web")}
		if status != "working" {
			args["result"] = "## Handoff\n- Done: it"
		}
		w.OK("gemini-web", "pact_report", args)
	}
	ids := []string{}
	for _, title := range []string{"Done", "Deferred", "Stale", "Kept"} {
		id := w.post("code-web", "web", title, nil)
		w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
		ids = append(ids, id)
	}
	require.Equal(t, 4, beats())
	require.Equal(t, 4, working())
	report(ids[0], "completed")
	w.OK("gemini-web", "pact_defer", map[string]any{"task_id": ids[1], "reason": "A person decides.", "mandate_id": w.Root("gemini-web")})
	w.Exec(`UPDATE task_activity SET at = now() - interval '31 minutes' WHERE task_id = ?`, ids[2])
	w.OK("code-web", "pact_list", map[string]any{"mandate_id": w.Root("code-web")})
	report(ids[3], "working")
	require.Equal(t, 1, beats(), "completed, deferred and released tasks keep no heartbeat")
	require.Equal(t, 1, working())
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": ids[2], "mandate_id": w.Root("gemini-web")})
	require.Equal(t, 2, beats(), "a claim writes the first heartbeat again")
	require.Equal(t, 2, working())
}

// TestEveryCallNamingTheTaskIsAHeartbeat: any successful call by the
// assignee that names its working task renews the claim's lease
// (docs/specs/behavior.md §6.0 step 6, §7.3). The tools that take a task_id
// come from the registry, so a new one must be placed here.
func TestEveryCallNamingTheTaskIsAHeartbeat(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Long job", nil)
	root := w.Root("gemini-web")
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": root})
	beats := map[string]map[string]any{
		"pact_report":  {"task_id": id, "status": "working", "mandate_id": root},
		"pact_message": {"task_id": id, "to": "code-web", "body": "on it", "mandate_id": root},
		"pact_wait":    {"task_id": id, "seconds": 0, "mandate_id": root},
	}
	// pact_claim starts the lease and pact_defer ends it, as pact_cancel
	// does; pact_reply is for a task nobody holds (both are its poster's,
	// never the assignee's); a Runner asks pact_run_credential once, right
	// after its claim.
	others := []string{"pact_claim", "pact_defer", "pact_cancel", "pact_reply", "pact_run_credential"}
	res, err := w.Session("gemini-web").ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range res.Tools {
		if strings.Contains(string(mustJSON(t, tool.InputSchema)), `"task_id"`) {
			_, beat := beats[tool.Name]
			require.True(t, beat || slices.Contains(others, tool.Name), "%s takes a task_id: is it a heartbeat?", tool.Name)
		}
	}
	for name, args := range beats {
		t.Run(name, func(t *testing.T) {
			w.Exec(`UPDATE task_activity SET at = now() - interval '29 minutes' WHERE task_id = ?`, id)
			w.OK("gemini-web", name, args)
			require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_activity WHERE task_id = ? AND at > now() - interval '1 minute'`, id),
				"%s renewed the lease", name)
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

// TestALostClaimSaysWhyAsTheTaskIsNow: a claim whose statement found the
// task taken, deferred or closed says what the task is when it looks again;
// one that is open again by then (a person resumed it between the two) is
// a race lost to that change, to be tried again, not a task that cannot be
// claimed.
func TestALostClaimSaysWhyAsTheTaskIsNow(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	cases := []struct {
		set, code, message string
	}{
		{`status = 'submitted', assignee = NULL, deferred = false`, string(errs.InvalidRequest), "changed while you claimed it and is open again; claim it again"},
		{`status = 'input_required', deferred = true`, string(errs.InvalidRequest), "is input_required (deferred) and cannot be claimed"},
		{`status = 'working', assignee = 'gemini-web', assignee_mandate_id = mandate_id`, string(errs.AlreadyClaimed), "is already claimed by gemini-web"},
		{`status = 'completed'`, string(errs.InvalidRequest), "is completed and cannot be claimed"},
	}
	for _, c := range cases {
		id := w.post("code-web", "web", "Raced", nil)
		w.Exec(`UPDATE tasks SET `+c.set+` WHERE id = ?`, id)
		err := w.board.NotClaimable(ctx, w.DB, id)
		e, ok := errs.As(err)
		require.True(t, ok, "%s: %v", c.set, err)
		require.Equal(t, c.code, string(e.Code), c.set)
		require.Contains(t, e.Message, c.message, c.set)
	}
}
