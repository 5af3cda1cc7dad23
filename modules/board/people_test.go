package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func TestPeopleApproveOrRejectTasks(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	_, err := w.ident.AddHuman(ctx, "ana", identity.HumanInput{ID: "vic", Name: "Vic", Role: identity.Viewer})
	require.NoError(t, err)
	deploy := w.post("code-web", "web", "Deploy", map[string]any{"action": "deploy.web"})
	require.Equal(t, errs.Forbidden, errs.CodeOf(w.board.Approve(ctx, "vic", deploy, true)))
	require.Equal(t, errs.NotFound, errs.CodeOf(w.board.Approve(ctx, "ana", "nope", true)))
	require.NoError(t, w.board.Approve(ctx, "ana", deploy, true))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(w.board.Approve(ctx, "ana", deploy, true)), "only a waiting task")
	require.Equal(t, 1, w.count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND approved_by = 'ana'`, deploy))

	var wide *mandate.Mandate
	require.NoError(t, w.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		wide, err = w.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: "ana", Holder: "code-web", Scope: []string{"*@project:web"},
			Delegations: 2, ExpiresAt: time.Now().Add(time.Hour)})
		return err
	}))
	other := w.ok("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Pay", "mandate_id": wide.ID.String(),
		"action": "finance.pay", "delegate_to": "gemini-web"})["task_id"].(string)
	require.NoError(t, w.board.Approve(ctx, "ana", other, false))
	require.Equal(t, 1, w.count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'rejected'`, other))
	require.Equal(t, 1, w.count(`SELECT count(*) FROM mandates m JOIN tasks t ON t.delegated_mandate_id = m.id
		WHERE t.id = ? AND m.revoked_at IS NOT NULL`, other), "a rejected task's delegated mandate dies")
	w.verifyLog()
}

func TestPeopleResumeDeferredTasksWithAnAnswer(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	id := w.post("code-web", "web", "Which DB?", nil)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(w.board.Resume(ctx, "ana", id, nil)))
	w.ok("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.roots["gemini-web"]})
	w.ok("gemini-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": w.roots["gemini-web"], "result": "Postgres or SQLite?"})
	answer := "PostgreSQL"
	require.NoError(t, w.board.Resume(ctx, "ana", id, &answer))
	list := w.ok("gemini-web", "pact_list", map[string]any{"mandate_id": w.roots["gemini-web"]})
	task := list["tasks"].([]any)[0].(map[string]any)
	require.Equal(t, "PostgreSQL", task["answer"], "the agent sees the answer on the task")
	require.Equal(t, false, task["deferred"])
}

func TestPeopleCancelReleaseAssignAndEdit(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	post := w.ok("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Job", "mandate_id": w.roots["code-web"], "delegate_to": "gemini-web"})
	id, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)

	// Assign to another agent: the previous delegate's mandate dies.
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(errOnly(w.board.Assign(ctx, "ana", id, "chat-web"))), "chat agents cannot claim")
	require.Equal(t, errs.AgentUnknown, errs.CodeOf(errOnly(w.board.Assign(ctx, "ana", id, "ghost"))))
	revoked, err := w.board.Assign(ctx, "ana", id, "runner-web")
	require.NoError(t, err)
	require.Equal(t, delegated, revoked)
	w.refused(errs.MandateRevoked, "gemini-web", "pact_list", map[string]any{"mandate_id": delegated})

	// Release: the holder loses the claim.
	w.ok("runner-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.roots["runner-web"]})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(errOnly(w.board.Assign(ctx, "ana", id, "gemini-web"))), "release it first")
	require.NoError(t, w.board.Release(ctx, "ana", id))
	w.refused(errs.ClaimLost, "runner-web", "pact_report", map[string]any{"task_id": id, "status": "working", "mandate_id": w.roots["runner-web"]})

	// Edit: the log keeps the old text.
	title := "Job, renamed"
	require.NoError(t, w.board.Edit(ctx, "ana", id, &title, nil))
	blank := "  "
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(w.board.Edit(ctx, "ana", id, &blank, nil)))
	require.Equal(t, 1, w.count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.task.edit' AND e.outcome = 'ok' AND p.content->'was'->>'title' = 'Job'`))

	// Cancel: closed for good.
	_, err = w.board.Cancel(ctx, "ana", id, "not needed")
	require.NoError(t, err)
	require.Equal(t, 1, w.count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled' AND result->>'reason' = 'canceled_by_human'`, id))
	_, err = w.board.Cancel(ctx, "ana", id, "again")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(w.board.Edit(ctx, "ana", id, &title, nil)))
	w.verifyLog()
}

func errOnly(_ string, err error) error { return err }
