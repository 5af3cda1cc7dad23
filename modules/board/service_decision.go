package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// The decisions people take on a task (docs/specs/behavior.md §7.2, §10.2).
// Each takes a task of by's organization, loaded for update; the Admin API
// adapters (admin_decide.go) check the role and log the change.

// Approve approves (submitted) or rejects (rejected, its delegated mandate
// revoked) a task waiting for approval (§5.8).
func (s *Service) Approve(ctx context.Context, tx bun.IDB, by Actor, taskID string, approve bool) error {
	t, _, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return err
	}
	if t.Status != authRequired {
		return errs.E(errs.InvalidRequest, "task %s is not waiting for approval", t.ID)
	}
	if !approve {
		if err := s.st.rejectTask(ctx, tx, t.ID); err != nil {
			return wrapf(err, "reject %s", t.ID)
		}
		_, _, err := s.closeMandates(ctx, tx, []string{t.ID})
		return wrapf(err, "reject %s", t.ID)
	}
	if err := s.st.approveTask(ctx, tx, t.ID, by.PersonID); err != nil {
		return wrapf(err, "approve %s", t.ID)
	}
	return wrapf(s.wakeFor(ctx, tx, t), "approve %s", t.ID)
}

// Resume puts a deferred task back on the board, with an optional answer to
// what it asked, which the agent then sees in pact_list (a resume without
// one keeps the last). The answer is also a message from by to the agent
// that asked, if it is still an agent of the project, so an agent holding
// pact_wait on the task gets the answer word for word the moment it is
// given, instead of polling pact_list for it.
func (s *Service) Resume(ctx context.Context, tx bun.IDB, by Actor, taskID string, answer *string) error {
	t, _, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return err
	}
	if !t.Deferred || t.Status != inputRequired {
		return errs.E(errs.InvalidRequest, "task %s is not deferred", t.ID)
	}
	stored := redactedText(answer)
	asker, err := s.st.resumeTask(ctx, tx, t.ID, stored)
	if err != nil {
		return wrapf(err, "resume %s", t.ID)
	}
	if stored != nil && *stored != "" && asker != nil {
		if err := s.answerAsker(ctx, tx, by, t, *asker, *stored); err != nil {
			return wrapf(err, "resume %s", t.ID)
		}
	}
	return wrapf(s.wakeFor(ctx, tx, t), "resume %s", t.ID)
}

// answerAsker writes a person's answer to the agent that asked, as a
// message on the task that wakes it; an asker since banned or moved out of
// the project gets nothing (the answer stays on the task).
func (s *Service) answerAsker(ctx context.Context, tx bun.IDB, by Actor, t *Task, asker, answer string) error {
	ok, err := s.st.projectAgent(ctx, tx, asker, t.ProjectID)
	if err != nil || !ok {
		return err
	}
	if _, err := s.st.insertMessage(ctx, tx, by.OrgID, t.ID, nil, nullable(by.PersonID), &asker, answer); err != nil {
		return err
	}
	return events.Publish(ctx, tx, events.Event{Kind: events.KindMessage, OrgID: by.OrgID, ProjectID: t.ProjectID,
		TaskID: t.ID, AgentID: asker})
}

// Release takes a working task from its holder, whom it returns, and puts
// it back on the board; the old holder's next report is claim_lost.
func (s *Service) Release(ctx context.Context, tx bun.IDB, by Actor, taskID string) (string, error) {
	t, _, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return "", err
	}
	if t.Status != working || t.Assignee == nil {
		return "", errs.E(errs.InvalidRequest, "task %s is not held by anyone", t.ID)
	}
	if err := s.st.reopen(ctx, tx, t.ID); err != nil {
		return "", wrapf(err, "release %s", t.ID)
	}
	return *t.Assignee, wrapf(s.wakeFor(ctx, tx, t), "release %s", t.ID)
}

// Cancel closes an open task as canceled; its delegated mandate and
// everything under it are revoked and its open subtasks canceled (§5.7). It
// returns the mandates revoked.
func (s *Service) Cancel(ctx context.Context, tx bun.IDB, by Actor, taskID string, reason string) ([]string, error) {
	t, _, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return nil, err
	}
	if terminal[t.Status] {
		return nil, errs.E(errs.InvalidRequest, "task %s is %s already", t.ID, t.Status)
	}
	if err := s.st.cancelTask(ctx, tx, t.ID, by.PersonID, reason); err != nil {
		return nil, wrapf(err, "cancel %s", t.ID)
	}
	revoked, _, err := s.closeMandates(ctx, tx, []string{t.ID})
	return revoked, wrapf(err, "cancel %s", t.ID)
}

// wakeFor wakes the agents a task concerns: its delegate, else one holder
// of pact_events in its project (an offer, service_offers.go).
func (s *Service) wakeFor(ctx context.Context, tx bun.IDB, t *Task) error {
	return s.wakeTask(ctx, tx, t.ID, t.ProjectID, "", t.DelegateTo)
}

// ChangeAnswer replaces the answer to t's question while the agent that
// asked has not read it (unreadAnswerSQL): on the task and in the message
// that carries it. It returns the answer it replaced. Refusals:
// invalid_request (no words; no answer the agent has not read).
func (s *Service) ChangeAnswer(ctx context.Context, tx bun.IDB, by Actor, taskID string, answer string) (string, error) {
	t, _, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return "", err
	}
	text := redact.Text(strings.TrimSpace(answer))
	if text == "" {
		return "", errs.E(errs.InvalidRequest, "an answer needs words")
	}
	msg, err := s.st.unreadAnswer(ctx, tx, t.ID)
	if err != nil {
		return "", wrapf(err, "change the answer of %s", t.ID)
	}
	if msg == 0 {
		return "", errs.E(errs.InvalidRequest, "task %s has no answer its agent has not read yet; write to the agent instead (message)", t.ID)
	}
	was := ""
	if t.Answer != nil {
		was = *t.Answer
	}
	return was, wrapf(s.st.changeAnswer(ctx, tx, t.ID, msg, text), "change the answer of %s", t.ID)
}
