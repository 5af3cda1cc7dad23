package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

// DeferInput is an agent's deferral of a task to people.
type DeferInput struct {
	TaskID string
	// Reason is why people must decide, in a sentence they can act on.
	Reason string
	// NeededScope are the scopes that would let an agent do it, if known.
	NeededScope []string
}

// Deferred is a task Defer handed to people: its status is input_required.
type Deferred struct{ TaskID, Status string }

// Defer hands task in.TaskID back to people when by, an agent acting under
// its verified chain, lacks the authority for it (docs/specs/behavior.md
// §5.9, §6.6): a task by may see, of a project that is not frozen, which
// by holds or nobody does, with a reason people can act on and, if known,
// the scopes that would be needed.
//
// Only an agent that could claim the task may defer it (docs/security.md,
// finding 10; the original checked no scope): a delegated task is its
// delegate's, and the chain must cover the task's action in its project,
// as a claim's must. Otherwise any agent with any mandate could pull any
// open task of its projects out of the board.
func (s *Service) Defer(ctx context.Context, tx bun.IDB, by Actor, in DeferInput) (Deferred, error) {
	t, p, err := s.taskFor(ctx, tx, by, in.TaskID)
	if err != nil {
		return Deferred{}, err
	}
	if err := refuseFrozen(p); err != nil {
		return Deferred{}, err
	}
	chain, reason, needed := by.Chain, in.Reason, in.NeededScope
	mine := t.Status == working && t.Assignee != nil && *t.Assignee == by.AgentID
	open := t.Status == submitted && t.Assignee == nil
	if !mine && !open {
		return Deferred{}, errs.E(errs.InvalidRequest, "task %s is %s and cannot be deferred by %s", t.ID, t.Status, by.AgentID)
	}
	if t.DelegateTo != nil && *t.DelegateTo != by.AgentID {
		return Deferred{}, errs.E(errs.WrongAgent, "task %s is delegated to %s; only its delegate may defer it", t.ID, *t.DelegateTo)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return Deferred{}, err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Deferred{}, errs.E(errs.InvalidRequest, "say why people must decide (reason)")
	}
	if err := s.st.deferTask(ctx, tx, t.ID, by.AgentID, reason, needed); err != nil {
		return Deferred{}, wrapf(err, "defer %s", t.ID)
	}
	_, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Deferred, ProjectID: t.ProjectID, TaskID: t.ID,
		AgentID: by.AgentID, Title: t.Title, Detail: reason})
	return Deferred{TaskID: t.ID, Status: inputRequired}, wrapf(err, "defer %s", t.ID)
}
