package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// maxCancelReason bounds the reason a poster gives for withdrawing a task.
const maxCancelReason = 2000

// Withdrawn is what Withdraw did.
type Withdrawn struct {
	TaskID string
	// Revoked are the mandates revoked with the task: its delegated
	// mandate and everything under it.
	Revoked []string
}

// Withdraw cancels an open task its poster no longer wants (pact_cancel,
// and A2A's CancelTask, docs/a2a.md): only the agent that posted it may,
// acting under the mandate it posted it with, live and still covering
// posting in the task's project. As a person's cancel does (§5.7), it
// closes the task as canceled, revokes its delegated mandate and
// everything under it, and cancels its open subtasks; the holder's next
// report is claim_lost. Refusals: not_found (a task by cannot see),
// invalid_request (closed already; no reason; another mandate than the
// task's), forbidden (another agent's task), the chain's.
func (s *Service) Withdraw(ctx context.Context, tx bun.IDB, by Actor, taskID, reason string) (Withdrawn, error) {
	t, p, err := s.taskFor(ctx, tx, by, taskID)
	if err != nil {
		return Withdrawn{}, err
	}
	if t.CreatedBy != by.AgentID {
		return Withdrawn{}, errs.E(errs.Forbidden, "task %s was posted by %s; only its poster may cancel it "+
			"(ask a person to cancel it in the Admin UI)", t.ID, t.CreatedBy)
	}
	if terminal[t.Status] {
		return Withdrawn{}, errs.E(errs.InvalidRequest, "task %s is %s already", t.ID, t.Status)
	}
	if leaf := by.Chain.Leaf(); leaf.ID.String() != t.MandateID {
		return Withdrawn{}, errs.E(errs.InvalidRequest,
			"task %s was posted under mandate %s; cancel it under that mandate (mandate_id), not %s", t.ID, t.MandateID, leaf.ID)
	}
	if err := requireScope(by.Chain, mandate.BoardScope("task.post", p.ID)); err != nil {
		return Withdrawn{}, err
	}
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return Withdrawn{}, errs.E(errs.InvalidRequest, "say why the task is canceled (reason)")
	case len(reason) > maxCancelReason:
		return Withdrawn{}, errs.E(errs.InvalidRequest, "reason is %d bytes; the limit is %d", len(reason), maxCancelReason)
	}
	if err := s.st.withdrawTask(ctx, tx, t.ID, by.AgentID, redact.Text(reason)); err != nil {
		return Withdrawn{}, wrapf(err, "cancel %s", t.ID)
	}
	revoked, _, err := s.closeMandates(ctx, tx, []string{t.ID})
	return Withdrawn{TaskID: t.ID, Revoked: revoked}, wrapf(err, "cancel %s", t.ID)
}
