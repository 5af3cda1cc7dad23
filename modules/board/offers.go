package board

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
)

// Offers (docs/events.md, "Offers"): a task that becomes claimable wakes one
// agent holding pact_events in its project, chosen in the database
// (task_offer, migration 024) so that boards sharing it make one offer, not
// one each; the other holders sleep on, costing nothing. An offer is never
// a claim: the woken agent still claims under its mandate, and its answer
// (like every holder's) lists everything it may claim, the tasks offered
// to it named in offered. A task still claimable when the offer's lease
// runs out is offered to the next holder (reoffer).

// defaultOfferLease is how long an offer waits for its holder to claim.
const defaultOfferLease = 10 * time.Second

// reofferEvery is how often a board looks for offers whose lease ran out.
const reofferEvery = time.Second

// offerSQL offers task $1 of project $2 (organization $3) with a lease of $4
// seconds, not to agent $5 (the holder whose lease ran out, if any).
const offerSQL = `SELECT task_offer($1::uuid, $2, $3, $4, $5)`

// wakeTask wakes whom a task that became claimable concerns: its
// delegate alone, or one holder of pact_events in its project (an offer).
func (m *Module) wakeTask(ctx context.Context, tx bun.IDB, taskID, projectID, orgID string, delegate *string) error {
	if delegate != nil {
		return events.Publish(ctx, tx, events.Event{Kind: events.KindTask, OrgID: orgID, ProjectID: projectID,
			TaskID: taskID, AgentID: *delegate})
	}
	if _, err := m.db.Write(ctx, tx, offerSQL, taskID, projectID, nullableText(orgID), m.offerLease.Seconds(), nil); err != nil {
		return fmt.Errorf("offer task %s: %w", taskID, err)
	}
	return nil
}

func nullableText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// holdSQL records that agent $1 holds a pact_events call on projects $2
// until at most $3 seconds from now; releaseSQL that one such call ended.
const (
	holdSQL = `INSERT INTO event_holders (agent_id, projects, holds, until)
		VALUES ($1, $2, 1, now() + make_interval(secs => $3))
		ON CONFLICT (agent_id) DO UPDATE SET projects = excluded.projects,
			holds = CASE WHEN event_holders.until > now() THEN event_holders.holds + 1 ELSE 1 END,
			until = greatest(event_holders.until, excluded.until)`
	releaseSQL = `UPDATE event_holders SET holds = greatest(holds - 1, 0) WHERE agent_id = $1`
)

// expiredSQL takes up to 100 offers whose lease ran out on tasks still
// claimable by anyone (undelegated, open), locked so that boards share the
// work; dropSQL forgets offers of tasks nobody may claim now.
const (
	expiredSQL = `SELECT o.task_id::text, t.project_id, o.agent_id FROM task_offers o JOIN tasks t ON t.id = o.task_id
		WHERE o.lease_until <= now() AND t.status = 'submitted' AND t.assignee IS NULL AND NOT t.deferred
		  AND t.delegate_to IS NULL
		ORDER BY o.lease_until LIMIT 100 FOR UPDATE OF o SKIP LOCKED`
	dropSQL = `DELETE FROM task_offers o USING tasks t WHERE t.id = o.task_id AND o.lease_until <= now()
		AND NOT (t.status = 'submitted' AND t.assignee IS NULL AND NOT t.deferred AND t.delegate_to IS NULL)`
)

// reoffer offers each task whose offer's lease ran out to the next holder,
// and forgets the offers of tasks claimed or closed meanwhile. It returns
// how many it offered again.
func (m *Module) reoffer(ctx context.Context) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, m.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, dropSQL); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, expiredSQL)
		if err != nil {
			return err
		}
		type expired struct{ task, project, agent string }
		due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (expired, error) {
			var e expired
			var agent *string
			err := r.Scan(&e.task, &e.project, &agent)
			if agent != nil {
				e.agent = *agent
			}
			return e, err
		})
		if err != nil {
			return err
		}
		for _, e := range due {
			if _, err := tx.Exec(ctx, offerSQL, e.task, e.project, nil, m.offerLease.Seconds(), nullableText(e.agent)); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("board: offer again: %w", err)
	}
	return n, nil
}

// reofferWorker runs reoffer every reofferEvery.
func (m *Module) reofferWorker(ctx context.Context) error {
	tick := time.NewTicker(reofferEvery)
	defer tick.Stop()
	for {
		if _, err := m.reoffer(ctx); err != nil && ctx.Err() == nil {
			m.logger.Warn("offers whose lease ran out wait for the next round", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
