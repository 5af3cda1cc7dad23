package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
)

// releaseStale puts back on the board every working task of projects whose
// assignee sent no heartbeat for the lease (PACT_STALE_MINUTES), logging
// one task.release_stale entry per task.
func (s *Service) releaseStale(ctx context.Context, tx bun.IDB, projects []string) error {
	if len(projects) == 0 {
		return nil
	}
	released, err := s.st.releaseStale(ctx, tx, projects, s.stale)
	if err != nil {
		return err
	}
	return s.logReleased(ctx, tx, released)
}

// releaseStaleStep is releaseStale as a step of a pipelined round trip;
// once the round trip has run, logged publishes and logs what it released
// (nothing to send in the common case, where nothing was stale).
func (s *Service) releaseStaleStep(projects []string) (step db.Step, logged func(ctx context.Context, tx bun.IDB) error) {
	var released []releasedTask
	return releaseStaleStep(projects, s.stale, &released), func(ctx context.Context, tx bun.IDB) error {
		return s.logReleased(ctx, tx, released)
	}
}

// logReleased publishes and logs each task releaseStaleSQL released.
func (s *Service) logReleased(ctx context.Context, tx bun.IDB, released []releasedTask) error {
	for _, r := range released {
		if err := s.wakeTask(ctx, tx, r.ID, r.ProjectID, "", r.DelegateTo); err != nil {
			return err
		}
		if _, err := s.log.Append(ctx, tx, ledger.Entry{ProjectID: r.ProjectID, TaskID: r.ID, Actor: "system",
			Action: "task.release_stale", Payload: map[string]any{"released_from": r.From,
				"after_minutes": s.stale.Minutes()}}); err != nil {
			return err
		}
	}
	return nil
}

// onRevoke is the board's revoke hook: every open task whose own, assignee
// or delegated mandate is in the revoked subtree is canceled, and the
// mandates delegated with those tasks die with them (closeMandates). It
// reports every task it stopped, those of the cascade included.
func (s *Service) onRevoke(ctx context.Context, tx bun.IDB, ev mandate.RevokeEvent) (mandate.RevokeReport, error) {
	ids := make([]string, len(ev.Subtree))
	for i, id := range ev.Subtree {
		ids[i] = id.String()
	}
	stopped, err := s.st.cancelUnder(ctx, tx, ev.Revoked.String(), ids)
	if err != nil {
		return mandate.RevokeReport{}, err
	}
	closed, err := s.closeDelegated(ctx, tx, stopped)
	return mandate.RevokeReport{TasksStopped: append(stopped, closed.cascaded...)}, err
}

// closeMandates revokes the delegated mandate of each closed task whose
// chain is still entirely alive — a delegated mandate lives only as long as
// its task — and logs mandate.revoke_on_close. Revoking runs the hooks again,
// which cancels the open subtasks under it; a chain already revoked is
// skipped, so the cascade ends. It returns the mandates it revoked and how
// many tasks that stopped.
func (s *Service) closeMandates(ctx context.Context, tx bun.IDB, taskIDs []string) (revoked []string, total int, err error) {
	c, err := s.closeDelegated(ctx, tx, taskIDs)
	return c.revoked, c.total, err
}

// closed is what closeDelegated did: the delegated mandates it revoked, how
// many tasks hung on them directly, and every task the revocations stopped.
type closed struct {
	revoked  []string
	total    int
	cascaded []string
}

// closeDelegated is closeMandates, also reporting the tasks the cascade
// stopped at any depth (for the revoke hook's report).
func (s *Service) closeDelegated(ctx context.Context, tx bun.IDB, taskIDs []string) (closed, error) {
	var c closed
	for _, id := range taskIDs {
		t, err := s.st.getTask(ctx, tx, id, false)
		if err != nil {
			return c, err
		}
		if t == nil || !terminal[t.Status] || t.DelegatedMandateID == nil {
			continue
		}
		lineage, err := s.mandates.Lineage(ctx, tx, *t.DelegatedMandateID)
		if err != nil {
			return c, err
		}
		if lineage.Revoked() {
			continue
		}
		delegated := lineage.Leaf().ID
		ev, err := s.mandates.RevokeSubtree(ctx, tx, delegated)
		if err != nil {
			return c, err
		}
		c.cascaded = append(c.cascaded, ev.TasksStopped...)
		stopped, err := s.st.stoppedBy(ctx, tx, delegated.String())
		if err != nil {
			return c, err
		}
		c.total += len(stopped)
		c.revoked = append(c.revoked, delegated.String())
		if _, err := s.log.Append(ctx, tx, ledger.Entry{ProjectID: t.ProjectID, TaskID: t.ID, Actor: "system",
			Action: "mandate.revoke_on_close", MandateChain: lineage.IDs(),
			Payload: map[string]any{"task_status": t.Status, "mandate_id": delegated.String(),
				"descendant_mandates": len(ev.Subtree) - 1, "tasks_stopped": stopped}}); err != nil {
			return c, err
		}
	}
	return c, nil
}

// SweepClosedTasks revokes the delegated mandates of every closed task whose
// chain is still alive, for boards that closed tasks before the rule
// existed; pact-admin migrate runs it. It is idempotent.
func (s *Service) SweepClosedTasks(ctx context.Context, tx bun.IDB) (int, error) {
	ids, err := s.st.closedWithLiveDelegation(ctx, tx)
	if err != nil {
		return 0, err
	}
	revoked, _, err := s.closeMandates(ctx, tx, ids)
	return len(revoked), err
}
