package board

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

// reported is what Report did.
type reported struct {
	BudgetExceeded []string
	Budget         map[string]float64
	Note           string
	// Revoked is the task's delegated mandate, revoked as it closed; Stopped
	// counts the open tasks that hung on it.
	Revoked string
	Stopped int
}

// Report records by's report on t, a task of project p it claimed under
// chain, which the adapter has verified (docs/specs/behavior.md §6.5,
// §7.4): a claim lost to someone else is claim_lost; usage is spent even
// past a ceiling; working is a heartbeat, input_required hands the task to
// people with a question, and a closing status needs a Handoff, revokes the
// task's delegated mandate and tells people.
func (s *Service) Report(ctx context.Context, tx bun.IDB, by Actor, chain mandate.Chain, t *task, p *project,
	status string, result json.RawMessage, usage map[string]float64) (reported, error) {
	if err := checkTaskResult(result); err != nil {
		return reported{}, err
	}
	if err := s.releaseStale(ctx, tx, []string{p.ID}); err != nil {
		return reported{}, wrapf(err, "report on %s", t.ID)
	}
	id := t.ID
	t, err := s.st.getTask(ctx, tx, id, true)
	if err != nil {
		return reported{}, wrapf(err, "report on %s", id)
	}
	if t.Assignee == nil || *t.Assignee != by.AgentID || t.Status != working {
		msg := "task %s is no longer claimed by %s"
		if t.Assignee != nil {
			msg += " (now with " + *t.Assignee + ")"
		}
		return reported{}, errs.E(errs.ClaimLost, msg+"; do not overwrite the new holder's work", t.ID, by.AgentID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return reported{}, err
	}
	var out reported
	if len(usage) > 0 {
		if out.BudgetExceeded, err = s.mandates.Consume(ctx, tx, chain, usage, false); err != nil {
			return reported{}, wrapf(err, "report on %s", t.ID)
		}
	}
	if out.Budget, err = s.budget(ctx, tx, chain); err != nil {
		return reported{}, wrapf(err, "report on %s", t.ID)
	}
	switch status {
	case working:
		out.Note = "heartbeat recorded"
		return out, wrapf(s.st.heartbeat(ctx, tx, t.ID, by.AgentID), "report on %s", t.ID)
	case inputRequired:
		out.Note = "A human sees this in the deferred list, answers, and resumes it. Stop working on it."
		return out, wrapf(s.askPeople(ctx, tx, by, t, result), "report on %s", t.ID)
	}
	if !hasHandoff(result) {
		return reported{}, errs.E(errs.HandoffRequired, "closing task %s needs a Handoff in result, e.g.\n%s", t.ID, handoffTemplate)
	}
	if err := s.st.closeTask(ctx, tx, t.ID, status, result); err != nil {
		return reported{}, wrapf(err, "report on %s", t.ID)
	}
	if err := notifyClosed(ctx, tx, by, t, status, result); err != nil {
		return reported{}, wrapf(err, "report on %s", t.ID)
	}
	revoked, stopped, err := s.closeMandates(ctx, tx, []string{t.ID})
	if err != nil {
		return reported{}, wrapf(err, "report on %s", t.ID)
	}
	if len(revoked) > 0 {
		out.Revoked, out.Stopped = revoked[0], stopped
	}
	return out, nil
}

// askPeople hands the task back to people with a question. Without one
// the task records "input required" and the people are told so in their
// organization's language.
func (s *Service) askPeople(ctx context.Context, tx bun.IDB, by Actor, t *task, result json.RawMessage) error {
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
func notifyClosed(ctx context.Context, tx bun.IDB, by Actor, t *task, status string, result json.RawMessage) error {
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
