package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addDefer(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_defer", Title: "Defer to a human",
		Description: "Hand a task back to people when you lack the authority for it (a refusal you must not " +
			"work around, a decision that is theirs). Say why and, if you know, which scopes would be needed. " +
			"Then stop working on it; never ask for a mandate for yourself.",
	}, m.deferTask)
}

type deferIn struct {
	TaskID      string   `json:"task_id" jsonschema:"The task's id (a UUID, from pact_list)."`
	Reason      string   `json:"reason" jsonschema:"Why people must decide, in a sentence they can act on."`
	MandateID   string   `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on."`
	NeededScope []string `json:"needed_scope,omitempty" jsonschema:"Scopes that would let an agent do it, e.g. [\"deploy.web@project:web\"]."`
}

// doneOut is the answer of a call that hands a task on: pact_defer.
type doneOut struct {
	OK     bool   `json:"ok" jsonschema:"Always true: the change was made."`
	TaskID string `json:"task_id" jsonschema:"The task changed."`
	Status string `json:"status" jsonschema:"Its status now."`
	Note   string `json:"note" jsonschema:"What happens next."`
}

func (m *Module) deferTask(ctx context.Context, c *kernel.Call, a deferIn) (doneOut, error) {
	tx := c.Tx
	if _, err := m.verify(ctx, c, a.MandateID); err != nil {
		return doneOut{}, err
	}
	who, err := loadCaller(ctx, tx, c.AgentID)
	if err != nil {
		return doneOut{}, err
	}
	t, p, err := m.visibleTask(ctx, c, who, a.TaskID)
	if err != nil {
		return doneOut{}, err
	}
	if err := refuseFrozen(p); err != nil {
		return doneOut{}, err
	}
	mine := t.Status == working && t.Assignee != nil && *t.Assignee == who.ID
	open := t.Status == submitted && t.Assignee == nil
	if !mine && !open {
		return doneOut{}, errs.E(errs.InvalidRequest, "task %s is %s and cannot be deferred by %s", t.ID, t.Status, who.ID)
	}
	reason := strings.TrimSpace(a.Reason)
	if reason == "" {
		return doneOut{}, errs.E(errs.InvalidRequest, "say why people must decide (reason)")
	}
	var needed any
	if len(a.NeededScope) > 0 {
		needed = pgdialect.Array(a.NeededScope)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', deferred = true, defer_reason = ?,
		needed_scope = ?, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`, reason, needed, t.ID); err != nil {
		return doneOut{}, err
	}
	if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Deferred, ProjectID: t.ProjectID, TaskID: t.ID,
		AgentID: who.ID, Title: t.Title, Detail: reason}); err != nil {
		return doneOut{}, err
	}
	return doneOut{OK: true, TaskID: t.ID, Status: inputRequired,
		Note: "A human sees this in the deferred list and decides. Stop working on it."}, nil
}
