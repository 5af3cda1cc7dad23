package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

// Defer hands t back to people when by, an agent, lacks the authority for
// it (docs/specs/behavior.md §5.9, §6.6): a task by holds, or an open one nobody
// does, with a reason people can act on and, if known, the scopes that
// would be needed.
func (m *Module) Defer(ctx context.Context, tx bun.IDB, by Actor, t *task, reason string, needed []string) error {
	mine := t.Status == working && t.Assignee != nil && *t.Assignee == by.AgentID
	open := t.Status == submitted && t.Assignee == nil
	if !mine && !open {
		return errs.E(errs.InvalidRequest, "task %s is %s and cannot be deferred by %s", t.ID, t.Status, by.AgentID)
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return errs.E(errs.InvalidRequest, "say why people must decide (reason)")
	}
	if err := deferTask(ctx, tx, t.ID, reason, needed); err != nil {
		return wrapf(err, "defer %s", t.ID)
	}
	_, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Deferred, ProjectID: t.ProjectID, TaskID: t.ID,
		AgentID: by.AgentID, Title: t.Title, Detail: reason})
	return wrapf(err, "defer %s", t.ID)
}
