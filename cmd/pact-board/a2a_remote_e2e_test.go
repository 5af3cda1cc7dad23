package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/modules/people"
)

// A remote A2A agent nobody here wrote works the board (docs/a2a.md,
// "Remote agents"; issue #35, "Outbound"): testdata/a2aremote, a server on
// the official JavaScript SDK (@a2a-js/sdk 1.3.0 with express) that wants
// a bearer token, is named as the card of an agent of client a2a-remote
// over the Admin API, and a code agent delegates tasks to it over MCP. The
// board, a real pact-board with PACT_A2A_ALLOW_PRIVATE=on (the remote is
// on loopback) and a claim lease of a minute, drives the remote itself:
//
//   - naming a card the board cannot read, one without a JSON-RPC
//     interface of A2A 1.0, or a card for an agent of another client or
//     none is refused (400, 404), saying why, and stores nothing;
//   - credentials the remote refuses (401) fail the task at once, saying so;
//   - a delegated task completes with the remote's artifact and Handoff,
//     the board following the remote task by stream, or reading it when
//     the card says the remote does not stream;
//   - a remote asking for input defers the task with its question; a
//     person's answer (Admin API resume), or the poster's (pact_reply),
//     reaches the remote as the next message on the same remote task, and
//     the task completes with it;
//   - the organization's kill switch stops a task the remote works on: the
//     remote sees its task canceled, and once the switch is off the board
//     reports the task canceled, as the remote left it;
//   - its poster withdrawing a task the remote works on (pact_cancel)
//     cancels the remote's task, the heartbeat after it being the agent's
//     one refused call;
//   - budgets apply: a task whose delegated mandate has no run to spend is
//     refused its claim once a lease, and never reaches the remote;
//   - an unreachable remote is retried for half the lease (30 s), then the
//     task fails with the reason.
func TestA2ARemoteAgentWorksDelegatedTasks(t *testing.T) {
	ctx := context.Background()
	iss := newOIDCIssuer(t)
	vars := oidcBoardVars(t, iss.URL)
	vars["PACT_A2A_ALLOW_PRIVATE"], vars["PACT_STALE_MINUTES"] = "on", "1"
	base, logs, _ := startBoard(t, vars)
	d, err := db.Open(ctx, vars["DATABASE_URL"])
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	tokens, roots := map[string]string{}, map[string]string{}
	for _, a := range []struct{ id, client string }{{"remote-web", "a2a-remote"}, {"poller-web", "a2a-remote"}, {"code-web", "code"}} {
		r, err := registerAgent(ctx, d, ident, "ana", people.AgentInput{ID: a.id, Client: a.client, Projects: []string{"web"}})
		require.NoError(t, err)
		tokens[a.id], roots[a.id] = r.Token, r.RootMandateID.String()
	}
	b := &remoteBoard{t: t, base: base, logs: logs,
		token: iss.token(t, "oidc-sub-ana", "ana@example.com", "http://127.0.0.1:8787/admin")}
	status, out := b.admin(http.MethodPost, "/invitations/ana/accept", nil)
	require.Equal(t, http.StatusOK, status, "%v", out)

	const secret = "remote-secret-0123456789"
	remote := startRemoteA2AAgent(t, logs, secret)
	listening := remote.await("listening", nil)
	cardURL, legacyURL := listening["card"].(string), listening["legacyCard"].(string)
	stored := func() int {
		var n int
		require.NoError(t, d.NewRaw(`SELECT count(*) FROM a2a_remotes`).Scan(ctx, &n))
		return n
	}
	name := func(agent string, body map[string]any) (int, map[string]any) {
		return b.admin(http.MethodPut, "/agents/"+agent+"/a2a-remote", body)
	}

	// Refusals, each saying why, none storing anything.
	status, out = name("remote-web", map[string]any{"card_url": closedCard(t), "authorization": "Bearer " + secret})
	require.Equal(t, http.StatusBadRequest, status, "%v", out)
	require.Contains(t, out["message"], "the board could not read the card at card_url")
	require.Contains(t, out["message"], "connection refused")
	status, out = name("remote-web", map[string]any{"card_url": legacyURL})
	require.Equal(t, http.StatusBadRequest, status, "%v", out)
	require.Contains(t, out["message"], "offers no JSON-RPC interface of A2A 1.0")
	status, out = name("code-web", map[string]any{"card_url": cardURL})
	require.Equal(t, http.StatusBadRequest, status, "%v", out)
	require.Equal(t, "agent code-web is a code agent; only an agent of client a2a-remote has a remote card", out["message"])
	status, out = name("nobody", map[string]any{"card_url": cardURL})
	require.Equal(t, http.StatusNotFound, status, "%v", out)
	require.Equal(t, "agent nobody does not exist", out["message"])
	require.Zero(t, stored(), "a refused card is not stored")
	require.Zero(t, remote.count("message", nil)+remote.count("unauthorized", nil), "nothing reached the remote's interface")

	code := connect(t, base, "code-web", tokens["code-web"])
	postTo := func(agent, title string) string {
		t.Helper()
		return code.ok("pact_post", map[string]any{"project_id": "web", "title": title, "mandate_id": roots["code-web"],
			"delegate_to": agent})["task_id"].(string)
	}
	post := func(title string) string { t.Helper(); return postTo("remote-web", title) }
	calls := func(remoteTask, method string) int {
		return remote.count("rpc", func(line map[string]any) bool { return line["taskId"] == remoteTask && line["method"] == method })
	}

	// Credentials the remote refuses: the task fails at once, saying so.
	status, out = name("remote-web", map[string]any{"card_url": cardURL, "authorization": "Bearer wrong"})
	require.Equal(t, http.StatusOK, status, "%v", out)
	started := time.Now()
	task := post("Paint the gate")
	done := b.until(task, 20*time.Second, "failed", hasStatus("failed"))
	text, handoff := taskResult(t, done)
	require.Contains(t, text, "the remote agent remote-web could not do it: the agent answered 401 Unauthorized")
	require.Contains(t, handoff, "- Needs a human: check the remote agent remote-web")
	require.Positive(t, remote.count("unauthorized", nil))
	t.Logf("refused credentials: failed in %s", time.Since(started).Round(time.Millisecond))

	// The card and the credentials the remote takes, sealed.
	status, out = name("remote-web", map[string]any{"card_url": cardURL, "authorization": "Bearer " + secret})
	require.Equal(t, http.StatusOK, status, "%v", out)
	require.Equal(t, map[string]any{"agent_id": "remote-web", "card_url": cardURL, "name": "Remote painter",
		"interface_url": strings.TrimSuffix(cardURL, ".well-known/agent-card.json"), "streaming": true}, out)
	var sealed string
	require.NoError(t, d.NewRaw(`SELECT auth_header FROM a2a_remotes WHERE agent_id = 'remote-web'`).Scan(ctx, &sealed))
	require.NotContains(t, sealed, secret, "the credentials are sealed at rest")
	require.Equal(t, 1, stored())

	// (a) A delegated task completes with the remote's artifact and Handoff.
	started = time.Now()
	task = post("Paint the fence")
	sent := remote.await("message", forTask(task))
	require.Equal(t, "Paint the fence", sent["text"])
	require.Equal(t, false, sent["followUp"])
	done = b.until(task, 20*time.Second, "completed", hasStatus("completed"))
	text, handoff = taskResult(t, done)
	require.Equal(t, "Did it: Paint the fence", text)
	require.Equal(t, "## Handoff\n- Done: Paint the fence, by the remote agent\n- Left / next: nothing", handoff)
	require.Equal(t, sent["taskId"], dig(done, "result", "remote_task_id"))
	require.Equal(t, "remote-web", done["assignee"], "the remote agent did it under the delegated mandate")
	require.Positive(t, calls(sent["taskId"].(string), "SubscribeToTask"), "its card streams: the board follows the stream")
	t.Logf("(a) completed in %s", time.Since(started).Round(time.Millisecond))

	// The same remote named by a card that does not stream: the board reads
	// the task (GetTask) instead.
	status, out = name("poller-web", map[string]any{"card_url": listening["polledCard"], "authorization": "Bearer " + secret})
	require.Equal(t, http.StatusOK, status, "%v", out)
	require.Equal(t, false, out["streaming"])
	started = time.Now()
	task = postTo("poller-web", "Paint the door")
	sent = remote.await("message", forTask(task))
	done = b.until(task, 20*time.Second, "completed", hasStatus("completed"))
	text, _ = taskResult(t, done)
	require.Equal(t, "Did it: Paint the door", text)
	require.Zero(t, calls(sent["taskId"].(string), "SubscribeToTask"))
	require.Positive(t, calls(sent["taskId"].(string), "GetTask"))
	t.Logf("(a) by a card that does not stream: completed in %s", time.Since(started).Round(time.Millisecond))

	// (b) The remote asks; a person answers; the answer reaches the same
	// remote task and the task completes with it.
	started = time.Now()
	task = post("Paint the shed, but ask which colour")
	asked := remote.await("message", forTask(task))
	waiting := b.until(task, 20*time.Second, "waiting for input", hasStatus("input_required"))
	require.Equal(t, true, waiting["deferred"])
	require.Equal(t, "Blue or green?", waiting["defer_reason"])
	status, out = b.admin(http.MethodPost, "/tasks/"+task+"/resume", map[string]any{"answer": "Blue"})
	require.Equal(t, http.StatusOK, status, "%v", out)
	answered := remote.await("message", forTask(task))
	require.Equal(t, "Blue", answered["text"])
	require.Equal(t, true, answered["followUp"])
	require.Equal(t, asked["taskId"], answered["taskId"], "the answer is the next message on the same remote task")
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", answered["state"])
	done = b.until(task, 20*time.Second, "completed", hasStatus("completed"))
	text, handoff = taskResult(t, done)
	require.Equal(t, "You chose Blue. Painted it blue.", text)
	require.Contains(t, handoff, "- Done: You chose Blue. Painted it blue.")
	require.Contains(t, handoff, "- Remote task: "+asked["taskId"].(string)+" at remote-web")
	require.Equal(t, 2, remote.count("message", forTask(task)), "the remote got the task and the answer, nothing more")
	t.Logf("(b) asked, answered and completed in %s", time.Since(started).Round(time.Millisecond))

	// The task's poster may answer too (pact_reply, over MCP): the same
	// way to the remote.
	task = post("Paint the porch, but ask which colour")
	asked = remote.await("message", forTask(task))
	b.until(task, 20*time.Second, "waiting for input", hasStatus("input_required"))
	code.ok("pact_reply", map[string]any{"task_id": task, "mandate_id": roots["code-web"], "reply": "Green"})
	answered = remote.await("message", forTask(task))
	require.Equal(t, "Green", answered["text"])
	require.Equal(t, asked["taskId"], answered["taskId"])
	done = b.until(task, 20*time.Second, "completed", hasStatus("completed"))
	text, _ = taskResult(t, done)
	require.Equal(t, "You chose Green. Painted it green.", text)

	// (c) The kill switch stops a task the remote works on: the remote's
	// task is canceled; the board task waits, and is reported canceled
	// once the switch is off.
	task = post("Paint the barn, and be slow about it")
	slow := remote.await("message", forTask(task))
	b.until(task, 20*time.Second, "held by remote-web", func(task map[string]any) bool {
		return task["status"] == "working" && task["assignee"] == "remote-web"
	})
	started = time.Now()
	status, out = b.admin(http.MethodPost, "/kill-switch", map[string]any{"halted": true})
	require.Equal(t, http.StatusOK, status, "%v", out)
	remote.await("canceled", func(line map[string]any) bool { return line["taskId"] == slow["taskId"] })
	t.Logf("(c) the remote task was canceled %s after the kill switch", time.Since(started).Round(time.Millisecond))
	require.Less(t, time.Since(started), 10*time.Second)
	// While the switch is on, the board leaves the agent's work alone: the
	// agent's one refused call (ever) is the heartbeat that stopped it, not
	// one a round.
	time.Sleep(5 * time.Second)
	halted := b.until(task, time.Second, "still open", func(map[string]any) bool { return true })
	require.Contains(t, []any{"working", "submitted"}, halted["status"], "nothing is reported while the switch is on")
	refusedCalls := func() []string {
		var got []string
		require.NoError(t, d.NewRaw(`SELECT action || ' ' || outcome FROM entries WHERE agent_id = 'remote-web' AND outcome <> 'ok'
			ORDER BY id`).Scan(ctx, &got))
		return got
	}
	require.Equal(t, []string{"pact_report system_halted"}, refusedCalls())
	status, out = b.admin(http.MethodPost, "/kill-switch", map[string]any{"halted": false})
	require.Equal(t, http.StatusOK, status, "%v", out)
	done = b.until(task, 20*time.Second, "canceled", hasStatus("canceled"))
	text, _ = taskResult(t, done)
	require.Equal(t, "Stopped as asked.", text)
	require.Equal(t, 1, remote.count("message", forTask(task)), "the canceled task is not sent again")

	// (c2) The poster withdraws a task the remote works on (pact_cancel):
	// its delegated mandate is revoked, the agent's next heartbeat is
	// refused, and the remote's task is canceled; the board task stays
	// as the poster left it.
	task = post("Paint the stable, and be slow about it")
	slow = remote.await("message", forTask(task))
	b.until(task, 20*time.Second, "held by remote-web", func(task map[string]any) bool {
		return task["status"] == "working" && task["assignee"] == "remote-web"
	})
	started = time.Now()
	code.ok("pact_cancel", map[string]any{"task_id": task, "mandate_id": roots["code-web"], "reason": "Not needed after all."})
	remote.await("canceled", func(line map[string]any) bool { return line["taskId"] == slow["taskId"] })
	t.Logf("(c2) the remote task was canceled %s after its poster withdrew it", time.Since(started).Round(time.Millisecond))
	require.Less(t, time.Since(started), 10*time.Second)
	done = b.until(task, time.Second, "canceled", hasStatus("canceled"))
	require.Equal(t, map[string]any{"by": "code-web", "note": "Not needed after all.", "reason": "canceled_by_poster"}, done["result"],
		"the agent reported nothing over the poster's cancel")
	// The heartbeat after the cancel is the agent's one refused call since
	// the kill switch: mandate_revoked, or claim_lost when it began before
	// the cancel committed and read the task after.
	lost := refusedCalls()
	require.Len(t, lost, 2, "%v", lost)
	require.Contains(t, []string{"pact_report mandate_revoked", "pact_report claim_lost"}, lost[1])

	// (e) Budgets apply as to any agent: the board claims as pact-runner
	// does, taking a run from the delegated mandate. A task delegated with
	// no run to spend is refused its claim (limit_exceeded), once a lease
	// rather than every round, stays on the board, and never reaches the
	// remote.
	task = code.ok("pact_post", map[string]any{"project_id": "web", "title": "Paint the well", "mandate_id": roots["code-web"],
		"delegate_to": "remote-web", "child_limits": map[string]any{"runs": 0}})["task_id"].(string)
	require.Eventually(t, func() bool { return len(refusedCalls()) > 2 }, 20*time.Second, 100*time.Millisecond)
	time.Sleep(5 * time.Second) // two rounds of the worker's tick, and task events
	require.Equal(t, append(lost, "pact_claim limit_exceeded"), refusedCalls())
	b.until(task, time.Second, "still on the board", hasStatus("submitted"))
	require.Zero(t, remote.count("message", forTask(task)), "a task the agent may not claim never reaches the remote")

	// (d) An unreachable remote: retried for half the lease, then the
	// task fails with the reason.
	remote.stop()
	started = time.Now()
	task = post("Paint the roof")
	done = b.until(task, 60*time.Second, "failed", hasStatus("failed"))
	took := time.Since(started)
	text, _ = taskResult(t, done)
	require.Contains(t, text, "the remote agent remote-web could not do it: the remote agent could not be reached for 30s")
	require.Contains(t, text, "connection refused")
	require.GreaterOrEqual(t, took, 30*time.Second, "it was retried for half the claim lease")
	t.Logf("(d) an unreachable remote: failed after %s", took.Round(time.Millisecond))
}
