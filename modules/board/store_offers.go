package board

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
)

// Offers and the holders of pact_events they go to (service_offers.go), in pgx's
// dialect ($n).

// offerSQL offers task $1 of project $2 (organization $3) with a lease of $4
// seconds, not to agent $5 (the holder whose lease ran out, if any).
const offerSQL = `SELECT task_offer($1::uuid, $2, $3, $4, $5)`

// offer offers task taskID of project projectID (organization orgID, ""
// to look it up) to one holder of pact_events, with lease.
func (st store) offer(ctx context.Context, tx bun.IDB, taskID, projectID, orgID string, lease time.Duration) error {
	if _, err := st.db.Write(ctx, tx, offerSQL, taskID, projectID, nullableText(orgID), lease.Seconds(), nil); err != nil {
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

// holdStep records that agent holds a pact_events call on projects for at
// most d, as a step of the transaction that starts the wait.
func holdStep(agent string, projects []string, d time.Duration) db.Step {
	return db.Step{SQL: holdSQL, Args: []any{agent, projects, d.Seconds()}}
}

// releaseStep records that one of agent's pact_events calls ended, as a
// step of the transaction that ends the wait.
func releaseStep(agent string) db.Step {
	return db.Step{SQL: releaseSQL, Args: []any{agent}}
}

// reoffer offers each task whose offer's lease ran out to the next holder,
// with lease, and forgets the offers of tasks claimed or closed meanwhile.
func (st store) reoffer(ctx context.Context, lease time.Duration) error {
	return pgx.BeginFunc(ctx, st.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, dropSQL); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, expiredSQL)
		if err != nil {
			return err
		}
		type expired struct{ taskID, project, agent string }
		due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (expired, error) {
			var e expired
			var agent *string
			err := r.Scan(&e.taskID, &e.project, &agent)
			if agent != nil {
				e.agent = *agent
			}
			return e, err
		})
		if err != nil {
			return err
		}
		for _, e := range due {
			if _, err := tx.Exec(ctx, offerSQL, e.taskID, e.project, nil, lease.Seconds(), nullableText(e.agent)); err != nil {
				return err
			}
		}
		return nil
	})
}
