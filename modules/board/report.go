package board

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) reportTool() kernel.Tool {
	return kernel.Tool{
		Name: "pact_report", Title: "Report on a task",
		Description: "Report on a task you hold: status working is a heartbeat (send one at least every 20 " +
			"minutes); completed, failed or canceled close it and need a Handoff in result (a markdown section " +
			"headed Handoff, or an object with a handoff key); input_required asks people a question and hands " +
			`the task back. usage records what a run spent, e.g. {"turns": 12}.`,
		Input: object([]string{"task_id", "status", "mandate_id"}, map[string]*jsonschema.Schema{
			"task_id":    str(taskDesc),
			"status":     enum("working (heartbeat), completed, failed, canceled (need a Handoff) or input_required (a question for people).", working, completed, failed, canceled, inputRequired),
			"mandate_id": str(mandateDesc + " The one you claimed with."),
			"result":     {Description: "What you did (closing: with its Handoff section), or your question (input_required). Text or an object."},
			"usage":      amounts(`What this run spent, e.g. {"turns": 12}; recorded even past a ceiling, then budget_exceeded says stop.`),
		}),
		Run: m.report,
	}
}

type reportArgs struct {
	TaskID    string          `json:"task_id"`
	Status    string          `json:"status"`
	MandateID string          `json:"mandate_id"`
	Result    json.RawMessage `json:"result"`
	Usage     map[string]any  `json:"usage"`
}

func (m *Module) report(ctx context.Context, c *kernel.Call) (any, error) {
	var a reportArgs
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return nil, errs.E(errs.InvalidRequest, "pact_report: %v", err)
	}
	tx := c.Tx
	usage, err := mandate.CheckAmounts(a.Usage, "usage")
	if err != nil {
		return nil, err
	}
	chain, who, t, p, err := m.workOn(ctx, c, a.MandateID, a.TaskID)
	if err != nil {
		return nil, err
	}
	if err := m.releaseStale(ctx, tx, []string{p.ID}); err != nil {
		return nil, err
	}
	if t, err = getTask(ctx, tx, t.ID, true); err != nil {
		return nil, err
	}
	if t.Assignee == nil || *t.Assignee != who.ID || t.Status != working {
		msg := "task %s is no longer claimed by %s"
		if t.Assignee != nil {
			msg += " (now with " + *t.Assignee + ")"
		}
		return nil, errs.E(errs.ClaimLost, msg+"; do not overwrite the new holder's work", t.ID, who.ID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return nil, err
	}
	out := map[string]any{"ok": true, "task_id": t.ID, "status": a.Status}
	if len(usage) > 0 {
		over, err := m.mandates.Consume(ctx, tx, chain, usage, false)
		if err != nil {
			return nil, err
		}
		if len(over) > 0 {
			out["budget_exceeded"] = over
		}
	}
	if err := m.addBudget(ctx, c, chain, out); err != nil {
		return nil, err
	}
	switch a.Status {
	case working:
		out["note"] = "heartbeat recorded"
		return out, heartbeat(ctx, tx, t.ID, who.ID)
	case inputRequired:
		return out, m.askPeople(ctx, c, t, a.Result, out)
	}
	if !hasHandoff(a.Result) {
		return nil, errs.E(errs.HandoffRequired, "closing task %s needs a Handoff in result, e.g.\n%s", t.ID, handoffTemplate)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, result = ?::jsonb WHERE id = ?`, a.Status, string(resultJSON(a.Result)), t.ID); err != nil {
		return nil, err
	}
	if err := m.notifyClosed(ctx, c, t, a.Status, a.Result); err != nil {
		return nil, err
	}
	revoked, stopped, err := m.closeMandates(ctx, tx, []string{t.ID})
	if err != nil {
		return nil, err
	}
	if len(revoked) > 0 {
		out["revoked_mandate"] = revoked[0]
		out["subtasks_canceled"] = stopped
	}
	return out, nil
}

// askPeople hands the task back to people with a question.
func (m *Module) askPeople(ctx context.Context, c *kernel.Call, t *task, result json.RawMessage, out map[string]any) error {
	question := "input required"
	if q := resultText(result); q != "" {
		question = q
	}
	_, err := c.Tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', result = ?::jsonb, deferred = true,
		defer_reason = ?, needed_scope = NULL, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`,
		nullJSON(result), question, t.ID)
	if err != nil {
		return err
	}
	out["note"] = "A human sees this in the deferred list, answers, and resumes it. Stop working on it."
	_, err = outbox.Enqueue(ctx, c.Tx, outbox.Notification{Kind: outbox.Question, ProjectID: t.ProjectID, TaskID: t.ID,
		AgentID: c.AgentID, Title: t.Title, Detail: question})
	return err
}

// notifyClosed tells people a task closed: a completed report.brief is a
// brief; any other top-level task a task_closed.
func (m *Module) notifyClosed(ctx context.Context, c *kernel.Call, t *task, status string, result json.RawMessage) error {
	n := outbox.Notification{ProjectID: t.ProjectID, TaskID: t.ID, AgentID: c.AgentID, Title: t.Title}
	switch {
	case t.Action == "report.brief" && status == completed:
		n.Kind, n.Detail = outbox.Brief, briefDetail(result)
	case t.ParentTaskID == nil:
		n.Kind, n.Detail = outbox.TaskClosed, status
	default:
		return nil
	}
	_, err := outbox.Enqueue(ctx, c.Tx, n)
	return err
}

// resultText is the result as text: a string as is, anything else as JSON.
func resultText(r json.RawMessage) string {
	if len(r) == 0 || string(r) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return string(r)
}

func resultJSON(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

func nullJSON(r json.RawMessage) *string {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	s := string(r)
	return &s
}
