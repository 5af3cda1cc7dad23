package board

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) deferTool() kernel.Tool {
	return kernel.Tool{
		Name: "pact_defer", Title: "Defer to a human",
		Description: "Hand a task back to people when you lack the authority for it (a refusal you must not " +
			"work around, a decision that is theirs). Say why and, if you know, which scopes would be needed. " +
			"Then stop working on it; never ask for a mandate for yourself.",
		Input: object([]string{"task_id", "reason", "mandate_id"}, map[string]*jsonschema.Schema{
			"task_id":      str(taskDesc),
			"reason":       str("Why people must decide, in a sentence they can act on."),
			"mandate_id":   str(mandateDesc),
			"needed_scope": strList(`Scopes that would let an agent do it, e.g. ["deploy.web@project:web"].`),
		}),
		Run: m.deferTask,
	}
}

type deferArgs struct {
	TaskID      string   `json:"task_id"`
	Reason      string   `json:"reason"`
	MandateID   string   `json:"mandate_id"`
	NeededScope []string `json:"needed_scope"`
}

func (m *Module) deferTask(ctx context.Context, c *kernel.Call) (any, error) {
	var a deferArgs
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return nil, errs.E(errs.InvalidRequest, "pact_defer: %v", err)
	}
	tx := c.Tx
	if _, err := m.verify(ctx, c, a.MandateID); err != nil {
		return nil, err
	}
	who, err := loadCaller(ctx, tx, c.AgentID)
	if err != nil {
		return nil, err
	}
	t, p, err := m.visibleTask(ctx, c, who, a.TaskID)
	if err != nil {
		return nil, err
	}
	if err := refuseFrozen(p); err != nil {
		return nil, err
	}
	mine := t.Status == working && t.Assignee != nil && *t.Assignee == who.ID
	open := t.Status == submitted && t.Assignee == nil
	if !mine && !open {
		return nil, errs.E(errs.InvalidRequest, "task %s is %s and cannot be deferred by %s", t.ID, t.Status, who.ID)
	}
	reason := strings.TrimSpace(a.Reason)
	if reason == "" {
		return nil, errs.E(errs.InvalidRequest, "say why people must decide (reason)")
	}
	var needed any
	if len(a.NeededScope) > 0 {
		needed = pgdialect.Array(a.NeededScope)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', deferred = true, defer_reason = ?,
		needed_scope = ?, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`, reason, needed, t.ID); err != nil {
		return nil, err
	}
	if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Deferred, ProjectID: t.ProjectID, TaskID: t.ID,
		AgentID: who.ID, Title: t.Title, Detail: reason}); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "task_id": t.ID, "status": inputRequired,
		"note": "A human sees this in the deferred list and decides. Stop working on it."}, nil
}
