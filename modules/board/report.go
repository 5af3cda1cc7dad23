package board

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addReport(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_report", Title: "Report on a task",
		Description: "Report on a task you hold: status working is a heartbeat (send one at least every 20 " +
			"minutes); completed, failed or canceled close it and need a Handoff in result (a markdown section " +
			"headed Handoff, or an object with a handoff key); input_required asks people a question and hands " +
			`the task back. usage records what a run spent, e.g. {"turns": 12}.`,
		Types: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[reportStatus](): enum(working, completed, failed, canceled, inputRequired),
		},
	}, m.report)
}

// reportStatus is what a report says of the task.
type reportStatus string

type reportIn struct {
	TaskID    string          `json:"task_id" jsonschema:"The task's id (a UUID, from pact_list)."`
	Status    reportStatus    `json:"status" jsonschema:"working (heartbeat), completed, failed, canceled (need a Handoff) or input_required (a question for people)."`
	MandateID string          `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on. The one you claimed with."`
	Result    json.RawMessage `json:"result,omitempty" jsonschema:"What you did (closing: with its Handoff section), or your question (input_required). Text or an object."`
	Usage     kernel.Amounts  `json:"usage,omitempty" jsonschema:"What this run spent, e.g. {\"turns\": 12}; recorded even past a ceiling, then budget_exceeded says stop."`
}

type reportOut struct {
	OK               bool               `json:"ok" jsonschema:"Always true: the report was recorded."`
	TaskID           string             `json:"task_id" jsonschema:"The task reported on."`
	Status           string             `json:"status" jsonschema:"The status reported."`
	BudgetExceeded   []string           `json:"budget_exceeded,omitempty" jsonschema:"The limits this usage went past: stop working and report."`
	Budget           map[string]float64 `json:"budget,omitempty" jsonschema:"What is left of each limit of your mandate's chain, when it has any."`
	Note             string             `json:"note,omitempty" jsonschema:"What happens next (heartbeats and questions)."`
	RevokedMandate   string             `json:"revoked_mandate,omitempty" jsonschema:"The task's delegated mandate, revoked now that it is closed."`
	SubtasksCanceled *int               `json:"subtasks_canceled,omitempty" jsonschema:"How many open subtasks hanging on that mandate were canceled."`
}

func (m *Module) report(ctx context.Context, c *kernel.Call, a reportIn) (reportOut, error) {
	tx := c.Tx
	usage, err := mandate.CheckAmounts(a.Usage, "usage")
	if err != nil {
		return reportOut{}, err
	}
	chain, who, t, p, err := m.workOn(ctx, c, a.MandateID, a.TaskID)
	if err != nil {
		return reportOut{}, err
	}
	if err := m.releaseStale(ctx, tx, []string{p.ID}); err != nil {
		return reportOut{}, err
	}
	if t, err = getTask(ctx, tx, t.ID, true); err != nil {
		return reportOut{}, err
	}
	if t.Assignee == nil || *t.Assignee != who.ID || t.Status != working {
		msg := "task %s is no longer claimed by %s"
		if t.Assignee != nil {
			msg += " (now with " + *t.Assignee + ")"
		}
		return reportOut{}, errs.E(errs.ClaimLost, msg+"; do not overwrite the new holder's work", t.ID, who.ID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return reportOut{}, err
	}
	out := reportOut{OK: true, TaskID: t.ID, Status: string(a.Status)}
	if len(usage) > 0 {
		if out.BudgetExceeded, err = m.mandates.Consume(ctx, tx, chain, usage, false); err != nil {
			return reportOut{}, err
		}
	}
	if out.Budget, err = m.budget(ctx, c, chain); err != nil {
		return reportOut{}, err
	}
	switch a.Status {
	case working:
		out.Note = "heartbeat recorded"
		return out, heartbeat(ctx, tx, t.ID, who.ID)
	case inputRequired:
		out.Note = "A human sees this in the deferred list, answers, and resumes it. Stop working on it."
		return out, m.askPeople(ctx, c, t, a.Result)
	}
	if !hasHandoff(a.Result) {
		return reportOut{}, errs.E(errs.HandoffRequired, "closing task %s needs a Handoff in result, e.g.\n%s", t.ID, handoffTemplate)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, result = ?::jsonb WHERE id = ?`, string(a.Status), string(resultJSON(a.Result)), t.ID); err != nil {
		return reportOut{}, err
	}
	if err := m.notifyClosed(ctx, c, t, string(a.Status), a.Result); err != nil {
		return reportOut{}, err
	}
	revoked, stopped, err := m.closeMandates(ctx, tx, []string{t.ID})
	if err != nil {
		return reportOut{}, err
	}
	if len(revoked) > 0 {
		out.RevokedMandate, out.SubtasksCanceled = revoked[0], &stopped
	}
	return out, nil
}

// askPeople hands the task back to people with a question.
func (m *Module) askPeople(ctx context.Context, c *kernel.Call, t *task, result json.RawMessage) error {
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
