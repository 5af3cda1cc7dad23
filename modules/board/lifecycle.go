package board

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
)

// heartbeat records that the assignee is alive on a working task, so its
// claim is not released. Any successful call by the assignee naming the
// task counts.
func (m *Module) heartbeat(ctx context.Context, tx bun.IDB, taskID, agent string) error {
	_, err := m.db.Write(ctx, tx, `INSERT INTO task_activity (task_id, agent_id, at)
		SELECT id, assignee, now() FROM tasks WHERE id = $1::uuid AND status = 'working' AND assignee = $2
		ON CONFLICT (task_id) DO UPDATE SET agent_id = excluded.agent_id, at = excluded.at`, taskID, agent)
	return err
}

// releaseStaleSQL puts back on the board every working task of projects
// ($1) whose assignee sent no heartbeat for the lease ($2 seconds). Each
// working task has its heartbeat row, and only working tasks have one
// (migration 012), so the index on the heartbeat's time finds the stale
// ones without reading the live ones.
const releaseStaleSQL = `WITH stale AS (
		SELECT t.id, t.assignee FROM task_activity a JOIN tasks t ON t.id = a.task_id
		WHERE a.at < now() - make_interval(secs => $2) AND t.status = 'working' AND t.project_id = ANY($1)
		FOR NO KEY UPDATE OF t)
	UPDATE tasks t SET status = 'submitted', assignee = NULL, assignee_mandate_id = NULL, claimed_at = NULL
	FROM stale WHERE t.id = stale.id
	RETURNING t.id::text AS id, t.project_id, stale.assignee AS released_from, t.delegate_to`

// releasedTask is a row of releaseStaleSQL.
type releasedTask struct {
	ID         string  `bun:"id"`
	ProjectID  string  `bun:"project_id"`
	From       string  `bun:"released_from"`
	DelegateTo *string `bun:"delegate_to"`
}

// releaseStale puts back on the board every working task of projects whose
// assignee sent no heartbeat for the lease (PACT_STALE_MINUTES), logging
// one task.release_stale entry per task.
func (m *Module) releaseStale(ctx context.Context, tx bun.IDB, projects []string) error {
	if len(projects) == 0 {
		return nil
	}
	var released []releasedTask
	if err := m.db.Fetch(ctx, tx, &released, releaseStaleSQL, projects, m.stale.Seconds()); err != nil {
		return fmt.Errorf("board.releaseStale: %w", err)
	}
	return m.logReleased(ctx, tx, released)
}

// releaseStaleStep is releaseStale as a step of a pipelined round trip;
// once the round trip has run, logged publishes and logs what it released
// (nothing to send in the common case, where nothing was stale).
func (m *Module) releaseStaleStep(projects []string) (step db.Step, logged func(ctx context.Context, tx bun.IDB) error) {
	var released []releasedTask
	step = db.Step{SQL: releaseStaleSQL, Args: []any{projects, m.stale.Seconds()}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		var r releasedTask
		_, err := pgx.ForEachRow(rows, []any{&r.ID, &r.ProjectID, &r.From, &r.DelegateTo}, func() error {
			released = append(released, r)
			return nil
		})
		if err != nil {
			return fmt.Errorf("board.releaseStale: %w", err)
		}
		return nil
	}}
	return step, func(ctx context.Context, tx bun.IDB) error { return m.logReleased(ctx, tx, released) }
}

// logReleased publishes and logs each task releaseStaleSQL released.
func (m *Module) logReleased(ctx context.Context, tx bun.IDB, released []releasedTask) error {
	for _, r := range released {
		if err := m.wakeTask(ctx, tx, r.ID, r.ProjectID, "", r.DelegateTo); err != nil {
			return err
		}
		if _, err := m.log.Append(ctx, tx, ledger.Entry{ProjectID: r.ProjectID, TaskID: r.ID, Actor: "system",
			Action: "task.release_stale", Payload: map[string]any{"released_from": r.From,
				"after_minutes": m.stale.Minutes()}}); err != nil {
			return err
		}
	}
	return nil
}

// onRevoke is the board's revoke hook: every open task whose own, assignee
// or delegated mandate is in the revoked subtree is canceled, and the
// mandates delegated with those tasks die with them (closeMandates). It
// reports every task it stopped, those of the cascade included.
func (m *Module) onRevoke(ctx context.Context, tx bun.IDB, ev mandate.RevokeEvent) (mandate.RevokeReport, error) {
	ids := make([]string, len(ev.Subtree))
	for i, id := range ev.Subtree {
		ids[i] = id.String()
	}
	var stopped []string
	err := tx.NewRaw(`UPDATE tasks SET status = 'canceled', assignee = NULL, assignee_mandate_id = NULL,
			result = jsonb_build_object('reason', 'mandate_revoked', 'mandate_id', ?::text)
		WHERE task_status_is_open(status)
		  AND (mandate_id = ANY(?::uuid[]) OR assignee_mandate_id = ANY(?::uuid[]) OR delegated_mandate_id = ANY(?::uuid[]))
		RETURNING id::text`, ev.Revoked.String(), pgdialect.Array(ids), pgdialect.Array(ids), pgdialect.Array(ids)).Scan(ctx, &stopped)
	if err != nil {
		return mandate.RevokeReport{}, err
	}
	closed, err := m.closeDelegated(ctx, tx, stopped)
	return mandate.RevokeReport{TasksStopped: append(stopped, closed.cascaded...)}, err
}

// closeMandates revokes the delegated mandate of each closed task whose
// chain is still entirely alive — a delegated mandate lives only as long as
// its task — and logs mandate.revoke_on_close. Revoking runs the hooks again,
// which cancels the open subtasks under it; a chain already revoked is
// skipped, so the cascade ends. It returns the mandates it revoked and how
// many tasks that stopped.
func (m *Module) closeMandates(ctx context.Context, tx bun.IDB, taskIDs []string) (revoked []string, total int, err error) {
	c, err := m.closeDelegated(ctx, tx, taskIDs)
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
func (m *Module) closeDelegated(ctx context.Context, tx bun.IDB, taskIDs []string) (closed, error) {
	var c closed
	for _, id := range taskIDs {
		t, err := m.getTask(ctx, tx, id, false)
		if err != nil {
			return c, err
		}
		if t == nil || !terminal[t.Status] || t.DelegatedMandateID == nil {
			continue
		}
		lineage, err := m.mandates.Lineage(ctx, tx, *t.DelegatedMandateID)
		if err != nil {
			return c, err
		}
		if lineage.Revoked() {
			continue
		}
		delegated := lineage.Leaf().ID
		ev, err := m.mandates.RevokeSubtree(ctx, tx, delegated)
		if err != nil {
			return c, err
		}
		c.cascaded = append(c.cascaded, ev.TasksStopped...)
		var stopped []string
		if err := tx.NewRaw(`SELECT id::text FROM tasks WHERE result->>'reason' = 'mandate_revoked'
			AND result->>'mandate_id' = ? ORDER BY id`, delegated.String()).Scan(ctx, &stopped); err != nil {
			return c, err
		}
		c.total += len(stopped)
		c.revoked = append(c.revoked, delegated.String())
		if _, err := m.log.Append(ctx, tx, ledger.Entry{ProjectID: t.ProjectID, TaskID: t.ID, Actor: "system",
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
func (m *Module) SweepClosedTasks(ctx context.Context, tx bun.IDB) (int, error) {
	var ids []string
	if err := tx.NewRaw(`SELECT t.id::text FROM tasks t JOIN mandates d ON d.id = t.delegated_mandate_id
		WHERE task_status_is_terminal(t.status) AND d.revoked_at IS NULL`).Scan(ctx, &ids); err != nil {
		return 0, err
	}
	revoked, _, err := m.closeMandates(ctx, tx, ids)
	return len(revoked), err
}
