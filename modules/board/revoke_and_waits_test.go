package board_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// TestAnotherOrganizationsMandateIsNotFoundWhoeverIssuedIt: pact_revoke
// answers not_found for a mandate of another organization, so an agent
// learns nothing of it (docs/security.md, finding 8), both when another
// organization's agent issued it by delegating and when its root was issued
// by a person whose id happens to be the caller's agent id (agents and
// people are named apart). Answering not_issuer there would confirm the
// mandate exists; neither mandate is revoked.
func TestAnotherOrganizationsMandateIsNotFoundWhoeverIssuedIt(t *testing.T) {
	w := newWorld(t)
	w.acme()
	const acmeRoot, acmeChild = "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"
	w.Exec(`INSERT INTO agents (id, org_id, owner, client) VALUES ('gemini-rocket', 'acme', 'bo', 'gemini');
		INSERT INTO mandates (id, parent_id, issuer_kind, issuer, holder, scope, delegations_left, depth, expires_at, signature)
			VALUES (?, ?, 'agent', 'code-rocket', 'gemini-rocket', '{task.work@project:rocket}', 0, 1,
				now() + interval '1 day', 'x')`, acmeChild, acmeRoot)
	w.agent("bo", "code", nil, "web") // an Office agent named as Acme's owner is

	e := w.Refused(errs.NotFound, "code-web", "pact_revoke", map[string]any{"mandate_id": acmeChild})
	require.NotContains(t, e.Message, "code-rocket", "nothing of Acme's mandate is told")
	w.Refused(errs.NotFound, "bo", "pact_revoke", map[string]any{"mandate_id": acmeRoot})
	require.Zero(t, w.Count(`SELECT count(*) FROM mandates WHERE id IN (?, ?) AND revoked_at IS NOT NULL`, acmeRoot, acmeChild))
}

// TestRevokeCountsTheMandatesDelegatedBelowTheTarget: descendant_mandates
// is how many mandates were revoked with the target, not counting it: 1
// when its holder delegated once further, 0 for a leaf (the mandates below
// each are counted in the database first).
func TestRevokeCountsTheMandatesDelegatedBelowTheTarget(t *testing.T) {
	w := newWorld(t)
	upper := w.delegatedTo("gemini-web", "task.post@project:web", nil)
	w.OK("gemini-web", "pact_post", map[string]any{"project_id": "web", "title": "Below", "mandate_id": upper,
		"delegate_to": "runner-web", "child_scope": []string{"task.read@project:web"}})
	leaf := w.delegatedTo("gemini-web", "task.work@project:web", nil)

	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE parent_id = ?`, upper), "one mandate below the target")
	require.Zero(t, w.Count(`SELECT count(*) FROM mandates WHERE parent_id = ?`, leaf), "none below the leaf")
	out := w.OK("code-web", "pact_revoke", map[string]any{"mandate_id": upper})
	require.EqualValues(t, 1, out["descendant_mandates"], "%v", out)

	out = w.OK("code-web", "pact_revoke", map[string]any{"mandate_id": leaf})
	require.EqualValues(t, 0, out["descendant_mandates"], "%v", out)
	w.VerifyLog()
}

// TestARunCredentialTakesTheBoundsItDocuments: pact_run_credential takes
// seconds up to 86400 inclusive (the run's timeout) and lists of up to 100
// tools inclusive (here one tool asked 100 times, kept once), and refuses
// 101. Only the issue is checked, not the credential's life.
func TestARunCredentialTakesTheBoundsItDocuments(t *testing.T) {
	w := newWorld(t)
	task, delegated := w.runSetup("Bounds")
	out := w.issueRun(task, delegated, []string{"pact_whoami"}, 86400)
	require.NotEmpty(t, out["token"])

	hundred := make([]string, 100)
	for i := range hundred {
		hundred[i] = "pact_whoami"
	}
	out = w.issueRun(task, delegated, hundred, 60)
	require.Equal(t, []any{"pact_whoami"}, out["tools"])
	w.Refused(errs.InvalidRequest, "runner-web", "pact_run_credential", map[string]any{"task_id": task, "mandate_id": delegated,
		"tools": append(hundred, "pact_whoami"), "seconds": 60})
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM run_credentials`))
}

// TestAWaitOnATaskIsLoggedOnItsProject: pact_wait naming a task logs its
// entry on that task and its project, so the call shows in the project's
// log like any other call on the task.
func TestAWaitOnATaskIsLoggedOnItsProject(t *testing.T) {
	w := newWorld(t)
	task := w.post("code-web", "web", "Talk", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "task_id": task, "seconds": 0})
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_wait' AND agent_id = 'gemini-web'
		AND task_id = ? AND project_id = 'web'`, task))
	w.VerifyLog()
}

// TestAWaitWhoseHeartbeatFailsFailsAsTheDatabaseDid: the heartbeat
// pact_wait writes on the task it names is part of the call; when the
// database refuses it (here a lock timeout, raised by a trigger the test
// adds behind the board's back), the call fails as the database did,
// unavailable with what to do, and is not answered as if the wait had
// worked.
func TestAWaitWhoseHeartbeatFailsFailsAsTheDatabaseDid(t *testing.T) {
	w := newWorld(t)
	task := w.post("code-web", "web", "Talk", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": w.Root("gemini-web")})
	w.Exec(`CREATE FUNCTION test_refuse_heartbeat() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'canceling statement due to lock timeout' USING ERRCODE = 'lock_not_available'; END $$;
		CREATE TRIGGER test_refuse_heartbeat BEFORE INSERT OR UPDATE ON task_activity
			FOR EACH ROW EXECUTE FUNCTION test_refuse_heartbeat()`)
	e := w.Refused(errs.Unavailable, "gemini-web", "pact_wait", map[string]any{"mandate_id": w.Root("gemini-web"), "task_id": task, "seconds": 0})
	require.Contains(t, e.Message, "try again")
}

// sent runs call and returns the statements the board sent PostgreSQL
// meanwhile that contain marker (a background worker's are filtered out
// by the marker).
func (w *world) sent(marker string, call func()) []string {
	w.T.Helper()
	var got []string
	stop := w.DB.Watch(func(sql string) {
		if strings.Contains(sql, marker) {
			got = append(got, sql)
		}
	})
	call()
	stop()
	return got
}

// TestAWaitSendsNoStatementItDoesNotNeed: pact_wait costs no round trip it
// does not need (docs/invariants.md PERF-001): with nothing unread it
// marks nothing read (with a message it does, which shows the watch sees
// the statement), and a Runner whose mandate reads no project does not
// ask for the production flags of none.
func TestAWaitSendsNoStatementItDoesNotNeed(t *testing.T) {
	w := newWorld(t)
	args := map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 0}
	require.Empty(t, w.sent("SET read_at", func() {
		require.Equal(t, true, w.OK("gemini-web", "pact_wait", args)["timed_out"])
	}), "nothing unread: nothing is marked read")

	task := w.post("code-web", "web", "Talk", nil)
	w.OK("code-web", "pact_message", map[string]any{"mandate_id": w.Root("code-web"), "task_id": task, "to": "gemini-web", "body": "hi"})
	require.NotEmpty(t, w.sent("SET read_at", func() {
		require.Len(t, w.OK("gemini-web", "pact_wait", args)["messages"], 1)
	}), "a message taken is marked read")

	blind := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Blind", "mandate_id": w.Root("code-web"),
		"delegate_to": "runner-web", "child_scope": []string{"task.post@project:web"}})["delegated_mandate_id"]
	require.Empty(t, w.sent("NOT production", func() {
		require.Equal(t, true, w.OK("runner-web", "pact_wait", map[string]any{"mandate_id": blind, "seconds": 0})["timed_out"])
	}), "no project to read: no production flags asked for")
	// The same Runner under its root reads web: the flags are asked for.
	require.NotEmpty(t, w.sent("NOT production", func() {
		w.OK("runner-web", "pact_wait", map[string]any{"mandate_id": w.Root("runner-web"), "seconds": 0})
	}))
}

// TestAnEventsHolderStaysOfferedFiveSecondsPastItsWait: a pact_events
// call records its agent as a holder (offered new work) until 5 seconds
// after the wait it asked for ends, so an agent calling again at once
// loses no offer; listening, as people see it, ends with the wait. Both
// marks are written in one transaction, so the gap between them is exact.
func TestAnEventsHolderStaysOfferedFiveSecondsPastItsWait(t *testing.T) {
	w := newWorld(t)
	done := make(chan error, 1)
	go func() {
		_, err := w.Call("gemini-web", "pact_events", map[string]any{"mandate_id": w.Root("gemini-web"), "seconds": 20})
		done <- err
	}()
	require.Eventually(t, func() bool {
		return w.Hub.Len() > 0 && w.Count(`SELECT count(*) FROM event_holders WHERE agent_id = 'gemini-web' AND holds > 0`) == 1
	}, 20*time.Second, 10*time.Millisecond, "pact_events is held")
	require.Equal(t, 5000, w.Count(`SELECT (extract(epoch FROM h.until - p.listening_until) * 1000)::int
		FROM event_holders h JOIN agent_presence p ON p.agent_id = h.agent_id WHERE h.agent_id = 'gemini-web'`))
	w.post("code-web", "web", "Wake", nil)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("pact_events did not answer")
	}
}

// TestEventsHandsOutEveryTaskOfATransactionPastFifty: 51 tasks made
// claimable by one transaction come in one pact_events answer, though a
// page holds 50: the cursor moves by whole transactions, so the rest of
// the last one comes now rather than never.
func TestEventsHandsOutEveryTaskOfATransactionPastFifty(t *testing.T) {
	w := newWorld(t)
	w.Exec(`INSERT INTO tasks (id, project_id, title, created_by, mandate_id, status)
		SELECT gen_random_uuid(), 'web', 'Bulk ' || g, 'code-web', ?, 'submitted' FROM generate_series(1, 51) g`, w.Root("code-web"))
	// Waited for: the cursor hands out a change once every older
	// transaction in the cluster has ended, and parallel tests share it.
	out := w.OK("gemini-web", "pact_events", map[string]any{"mandate_id": w.Root("gemini-web"), "since": 0, "seconds": 20})
	require.Len(t, out["tasks"], 51)
}

// TestEventsListsTheTasksOfferedToTheCallerFirst: pact_events answers the
// tasks offered to the caller before the others it may claim, though they
// changed later, so an agent taking the first task takes the one the board
// meant for it.
func TestEventsListsTheTasksOfferedToTheCallerFirst(t *testing.T) {
	w := newWorld(t)
	older := w.post("code-web", "web", "Nobody held events", nil)
	// gemini-web holds pact_events on web (as its held call records it),
	// so the next task posted is offered to it.
	w.Exec(`INSERT INTO event_holders (agent_id, projects, holds, until) VALUES ('gemini-web', '{web}', 1, now() + interval '1 hour')`)
	offered := w.post("code-web", "web", "Offered to gemini-web", nil)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_offers WHERE agent_id = 'gemini-web' AND task_id = ?`, offered))

	out := w.OK("gemini-web", "pact_events", map[string]any{"mandate_id": w.Root("gemini-web"), "since": 0, "seconds": 20})
	require.Equal(t, []any{offered}, out["offered"])
	tasks, _ := out["tasks"].([]any)
	require.Len(t, tasks, 2, "%v", out)
	require.Equal(t, offered, tasks[0].(map[string]any)["id"], "the offered task first")
	require.Equal(t, older, tasks[1].(map[string]any)["id"])
}
