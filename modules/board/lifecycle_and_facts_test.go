package board_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/seams"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
)

// entryInt is the integer key of the payload of the one entry of action on
// task (-1: no such entry).
func (w *world) entryInt(action, task, key string) int {
	w.T.Helper()
	return w.Count(`SELECT coalesce((SELECT (p.content->>?)::int FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = ? AND e.task_id = ?), -1)`, key, action, task)
}

// A report releases the stale claims of its project first, every one of
// them, each logged: with gemini-web's and gemini-two's claims on web silent
// for 31 minutes (the default lease is 30), code-web's heartbeat on its own
// web task puts both back on the board and logs one task.release_stale per
// task. This proves Report calls the release for its project (not only
// when it has none), logs what it released, and logs past the first task.
func TestAReportReleasesAndLogsEveryStaleClaimOfItsProject(t *testing.T) {
	w := newWorld(t)
	w.agent("gemini-two", "gemini", nil, "web")
	stale := []string{w.post("code-web", "web", "First", nil), w.post("code-web", "web", "Second", nil)}
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": stale[0], "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-two", "pact_claim", map[string]any{"task_id": stale[1], "mandate_id": w.Root("gemini-two")})
	own := w.post("chat-web", "web", "Own", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": own, "mandate_id": w.Root("code-web")})
	w.Exec(`UPDATE task_activity SET at = now() - interval '31 minutes' WHERE task_id IN (?, ?)`, stale[0], stale[1])

	w.OK("code-web", "pact_report", map[string]any{"task_id": own, "status": "working", "mandate_id": w.Root("code-web")})
	for _, id := range stale {
		require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND assignee IS NULL`, id),
			"the stale claim was released")
		require.Equal(t, 30, w.entryInt("task.release_stale", id, "after_minutes"), "and logged")
	}
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working' AND assignee = 'code-web'`, own))
	w.VerifyLog()
}

// Revoking a delegated mandate reports the open task it was delegated
// for among the tasks the revocation stopped (the board's revoke hook
// answers with what it canceled), and the task is canceled. This proves
// the hook returns its report instead of an empty one.
func TestRevokingADelegatedMandateReportsTheTaskItStopped(t *testing.T) {
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Delegated",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	var stopped []string
	require.NoError(t, w.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		ev, err := w.Mandates.RevokeSubtree(ctx, tx, uuid.MustParse(delegated))
		if ev != nil {
			stopped = ev.TasksStopped
		}
		return err
	}))
	require.Equal(t, []string{id}, stopped)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled'`, id))
}

// The sweep (pact-admin migrate) revokes the delegated mandate of every
// closed task, not only the first: with two tasks closed behind the
// board's back it counts 2, both mandates are revoked, and each
// mandate.revoke_on_close entry says 0 descendant mandates (the subtree is
// the delegated mandate alone). This proves closeDelegated goes on after
// logging one task and counts the descendants as the subtree less itself.
func TestTheSweepRevokesEveryClosedTasksMandateCountingItsDescendants(t *testing.T) {
	w := newWorld(t)
	var ids, delegated []string
	for _, title := range []string{"Old one", "Old two"} {
		post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": title,
			"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
		ids, delegated = append(ids, post["task_id"].(string)), append(delegated, post["delegated_mandate_id"].(string))
	}
	w.Exec(`UPDATE tasks SET status = 'completed' WHERE id IN (?, ?)`, ids[0], ids[1])
	var n int
	require.NoError(t, w.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		n, err = w.board.SweepClosedTasks(ctx, tx)
		return err
	}))
	require.Equal(t, 2, n)
	for i, id := range ids {
		require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ?::uuid AND revoked_at IS NOT NULL`, delegated[i]))
		require.Equal(t, 0, w.entryInt("mandate.revoke_on_close", id, "descendant_mandates"))
	}
	w.VerifyLog()
}

// Mandate administration (modules/mandates) learns from the board, through
// seams.MandateTasksSeam, what hangs on a mandate: for a revoke's impact,
// the open task posted under code-web's root; for the mandate list, the
// task a delegated mandate was delegated for (and none for the root, which
// was delegated for no task). This proves the board's OpenTasksUnder and
// DelegatedFor answer for the mandates asked about rather than nothing.
func TestMandateAdministrationSeesTheBoardsTasks(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	post := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Delegated",
		"mandate_id": w.Root("code-web"), "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)
	tasks, err := kernel.Use(w.Kernel, seams.MandateTasksSeam)()
	require.NoError(t, err)

	open, err := tasks.OpenTasksUnder(ctx, w.DB, []string{w.Root("code-web")})
	require.NoError(t, err)
	require.Len(t, open, 1, "a revoke's impact lists the task")
	require.Equal(t, id, open[0].ID)

	by, err := tasks.DelegatedFor(ctx, w.DB, []string{delegated, w.Root("code-web")})
	require.NoError(t, err)
	require.Len(t, by, 1, "only the delegated mandate was given for a task")
	require.Equal(t, id, by[delegated].ID)
	require.Equal(t, "Delegated", by[delegated].Title)
}

// A Runner's messages on a production project are not handed to it by a
// hook (they wait, unread), while on a project that is not production they
// are, and the hook.messages entry names the hook event and the ids of the
// messages handed. This proves HandMessages leaves out exactly a Runner's
// production projects and logs what it handed.
func TestHooksHandARunnerNoMessagesOfProductionProjectsAndLogWhatTheyHand(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Prod job", map[string]any{"delegate_to": "runner-web"})
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web"), "to": "runner-web",
		"body": "Deploy when ready"})
	msg := w.Count(`SELECT id FROM task_messages WHERE task_id = ? AND to_agent = 'runner-web'`, id)
	tool := `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`

	w.Exec(`UPDATE projects SET production = true WHERE id = 'web'`)
	out := w.hookOK("runner-web", "post-tool-use", tool, nil)
	require.NotContains(t, out, "hookSpecificOutput", "nothing handed on a production project")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE id = ? AND read_at IS NULL`, msg))

	w.Exec(`UPDATE projects SET production = false WHERE id = 'web'`)
	out = w.hookOK("runner-web", "post-tool-use", tool, nil)
	require.Equal(t, "PACT: 1 new message(s) handed to Claude.", out["systemMessage"])
	require.Zero(t, w.Count(`SELECT count(*) FROM task_messages WHERE id = ? AND read_at IS NULL`, msg))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'hook.messages' AND e.agent_id = 'runner-web'
		  AND p.content = jsonb_build_object('event', 'post-tool-use', 'message_ids', jsonb_build_array(?::bigint))`, msg))
	w.VerifyLog()
}

// pact_list says has_more when the page is full: with three open tasks
// on web, a page of 2 returns two and has_more true, and the page after
// next_since returns the third with has_more false. This proves a page of
// exactly limit tasks is reported as possibly followed by more.
func TestAFullPageOfTasksSaysThereIsMore(t *testing.T) {
	w := newWorld(t)
	for _, title := range []string{"One", "Two", "Three"} {
		w.post("code-web", "web", title, nil)
	}
	first := w.OK("gemini-web", "pact_list", map[string]any{"mandate_id": w.Root("gemini-web"), "limit": 2})
	require.Len(t, first["tasks"], 2)
	require.Equal(t, true, first["has_more"])
	next := w.OK("gemini-web", "pact_list", map[string]any{"mandate_id": w.Root("gemini-web"), "limit": 2,
		"since": first["next_since"]})
	require.Len(t, next["tasks"], 1)
	require.Equal(t, false, next["has_more"])
}

// A tool use whose agent can no longer be admitted once its task was
// found (here the board's system state row is gone by then, so admission
// finds no agent) is refused and answered as a refusal, logged: false with
// agent_unknown, not a crashed handler's 500. This proves RecordToolUse
// reads the caller's organization only when admission returned a caller.
func TestAToolUseWhoseAgentIsNoLongerAdmittedIsRefusedNotACrash(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	task := w.post("chat-web", "web", "Write", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": w.Root("code-web")})
	// The tool use waits on the tasks table while the row admission reads
	// is deleted, and goes on once that commits.
	tx, err := w.DB.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	_, err = tx.ExecContext(ctx, `LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `DELETE FROM system_state`)
	require.NoError(t, err)
	type reply struct {
		status int
		body   string
		err    error
	}
	got := make(chan reply, 1)
	go func() {
		req, err := http.NewRequest(http.MethodPost, w.URL+"/hooks/a/code-web/post-tool-use",
			strings.NewReader(`{"tool_name": "Bash", "tool_input": {"command": "ls"}}`))
		if err != nil {
			got <- reply{err: err}
			return
		}
		req.Header.Set("Authorization", "Bearer "+w.Token("code-web"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- reply{err: err}
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		got <- reply{status: resp.StatusCode, body: string(raw), err: err}
	}()
	w.waitForLockWaiters(1)
	require.NoError(t, tx.Commit())
	r := <-got
	require.NoError(t, r.err)
	require.Equal(t, 200, r.status, r.body)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &out))
	require.Equal(t, false, out["logged"])
	require.Equal(t, "agent_unknown", out["error"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'hook.post_tool_use' AND outcome = 'agent_unknown'`))
}
