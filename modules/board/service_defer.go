package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

// Defer hands t, a task of project p, back to people when by, an agent
// acting under chain, lacks the authority for it (docs/specs/behavior.md
// §5.9, §6.6): a task by holds, or an open one nobody does, with a reason
// people can act on and, if known, the scopes that would be needed.
//
// Only an agent that could claim the task may defer it (docs/security.md,
// finding 10; the original checked no scope): a delegated task is its
// delegate's, and the chain must cover the task's action in its project,
// as a claim's must. Otherwise any agent with any mandate could pull any
// open task of its projects out of the board.
func (s *Service) Defer(ctx context.Context, tx bun.IDB, by Actor, chain mandate.Chain, t *task, p *project,
	reason string, needed []string) error {
	mine := t.Status == working && t.Assignee != nil && *t.Assignee == by.AgentID
	open := t.Status == submitted && t.Assignee == nil
	if !mine && !open {
		return errs.E(errs.InvalidRequest, "task %s is %s and cannot be deferred by %s", t.ID, t.Status, by.AgentID)
	}
	if t.DelegateTo != nil && *t.DelegateTo != by.AgentID {
		return errs.E(errs.WrongAgent, "task %s is delegated to %s; only its delegate may defer it", t.ID, *t.DelegateTo)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return err
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return errs.E(errs.InvalidRequest, "say why people must decide (reason)")
	}
	if err := s.st.deferTask(ctx, tx, t.ID, by.AgentID, reason, needed); err != nil {
		return wrapf(err, "defer %s", t.ID)
	}
	_, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Deferred, ProjectID: t.ProjectID, TaskID: t.ID,
		AgentID: by.AgentID, Title: t.Title, Detail: reason})
	return wrapf(err, "defer %s", t.ID)
}
