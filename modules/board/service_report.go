package board

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

// ReportInput is an agent's report on a task it holds.
type ReportInput struct {
	TaskID string
	// Status is working (a heartbeat), completed, failed, canceled (these
	// close it) or input_required (a question for people).
	Status string
	// Result is what was done (with its Handoff, closing) or the question.
	Result json.RawMessage
	// Usage is what the run spent, spent even past a ceiling.
	Usage map[string]float64
}

// Reported is what Report did.
type Reported struct {
	TaskID, Status string
	// BudgetExceeded are the limits the usage went past; Budget what is
	// left of each limit of the chain (nil when it has none).
	BudgetExceeded []string
	Budget         map[string]float64
	// Revoked is the task's delegated mandate, revoked as it closed; Stopped
	// counts the open tasks that hung on it.
	Revoked string
	Stopped int
}

// Report records by's report on task in.TaskID, which it claimed under its
// verified chain (docs/specs/behavior.md §6.5, §7.4): a task it may see, of
// a project that is not frozen (nor production, for a Runner); a claim lost
// to someone else is claim_lost; usage is spent even past a ceiling;
// working is a heartbeat, input_required hands the task to people with a
// question, and a closing status needs a Handoff, revokes the task's
// delegated mandate and tells people.
func (s *Service) Report(ctx context.Context, tx bun.IDB, by Actor, in ReportInput) (Reported, error) {
	t, p, err := s.workOn(ctx, tx, by, in.TaskID)
	if err != nil {
		return Reported{}, err
	}
	chain, status, result, usage := by.Chain, in.Status, in.Result, in.Usage
	if err := checkTaskResult(result); err != nil {
		return Reported{}, err
	}
	if err := s.releaseStale(ctx, tx, []string{p.ID}); err != nil {
		return Reported{}, wrapf(err, "report on %s", t.ID)
	}
	id := t.ID
	t, err = s.st.getTask(ctx, tx, id, true)
	if err != nil {
		return Reported{}, wrapf(err, "report on %s", id)
	}
	if t.Assignee == nil || *t.Assignee != by.AgentID || t.Status != working {
		msg := "task %s is no longer claimed by %s"
		if t.Assignee != nil {
			msg += " (now with " + *t.Assignee + ")"
		}
		return Reported{}, errs.E(errs.ClaimLost, msg+"; do not overwrite the new holder's work", t.ID, by.AgentID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return Reported{}, err
	}
	out := Reported{TaskID: t.ID, Status: status}
	if len(usage) > 0 {
		if out.BudgetExceeded, err = s.mandates.Consume(ctx, tx, chain, usage, false); err != nil {
			return Reported{}, wrapf(err, "report on %s", t.ID)
		}
	}
	if out.Budget, err = s.budget(ctx, tx, chain); err != nil {
		return Reported{}, wrapf(err, "report on %s", t.ID)
	}
	switch status {
	case working:
		return out, wrapf(s.st.heartbeat(ctx, tx, t.ID, by.AgentID), "report on %s", t.ID)
	case inputRequired:
		return out, wrapf(s.askPeople(ctx, tx, by, t, result), "report on %s", t.ID)
	}
	if !hasHandoff(result) {
		return Reported{}, errs.E(errs.HandoffRequired, "closing task %s needs a Handoff in result, e.g.\n%s", t.ID, handoffTemplate)
	}
	if err := s.st.closeTask(ctx, tx, t.ID, status, result); err != nil {
		return Reported{}, wrapf(err, "report on %s", t.ID)
	}
	if err := notifyClosed(ctx, tx, by, t, status, result); err != nil {
		return Reported{}, wrapf(err, "report on %s", t.ID)
	}
	revoked, stopped, err := s.closeMandates(ctx, tx, []string{t.ID})
	if err != nil {
		return Reported{}, wrapf(err, "report on %s", t.ID)
	}
	if len(revoked) > 0 {
		out.Revoked, out.Stopped = revoked[0], stopped
	}
	return out, nil
}

// askPeople hands the task back to people with a question. Without one
// the task records "input required" and the people are told so in their
// organization's language.
func (s *Service) askPeople(ctx context.Context, tx bun.IDB, by Actor, t *Task, result json.RawMessage) error {
	n := outbox.Notification{Kind: outbox.Question, ProjectID: t.ProjectID, TaskID: t.ID, AgentID: by.AgentID, Title: t.Title}
	question := resultText(result)
	if question == "" {
		question = "input required"
		n.DetailIn = texts(s.cat, msgInputRequired, nil)
	}
	n.Detail = question
	if err := s.st.askTask(ctx, tx, t.ID, by.AgentID, question, nullJSON(result)); err != nil {
		return err
	}
	_, err := outbox.Enqueue(ctx, tx, n)
	return err
}

// notifyClosed tells people a task closed: a completed report.brief is a
// brief; any other top-level task a task_closed.
func notifyClosed(ctx context.Context, tx bun.IDB, by Actor, t *Task, status string, result json.RawMessage) error {
	n := outbox.Notification{ProjectID: t.ProjectID, TaskID: t.ID, AgentID: by.AgentID, Title: t.Title}
	switch {
	case t.Action == "report.brief" && status == completed:
		n.Kind, n.Detail = outbox.Brief, briefDetail(result)
	case t.ParentTaskID == nil:
		n.Kind, n.Detail = outbox.TaskClosed, status
	default:
		return nil
	}
	_, err := outbox.Enqueue(ctx, tx, n)
	return err
}
