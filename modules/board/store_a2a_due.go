package board

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
)

// The A2A workers' looks for work. Every board's push and remote workers
// look at every task and message event, so these are sent as prepared
// statements (db.DB.Fetch, pgx's $n placeholders), planned once per
// connection: as bun's text, planned afresh each time, planning was three
// quarters of their cost in make load's day (docs/benchmarks.md, "A working
// day").

// pushDue is the condition under which config c (joined to its task t) has
// something to deliver: the task changed, or its thread grew, since the
// last delivery the receiver acknowledged.
const pushDue = `c.dead_at IS NULL AND (t.change_seq > c.delivered_seq
	OR (SELECT count(*) FROM task_messages m WHERE m.task_id = c.task_id) > c.delivered_messages)`

// claimPush takes the next config that is due and whose next attempt is
// now, counts the attempt, and leases it for lease (its next attempt
// moves past the lease, so another board takes it only when this one died
// on it); nil when none is.
func (st store) claimPush(ctx context.Context, tx bun.IDB, lease time.Duration) (*pushClaim, error) {
	var rows []pushClaim
	err := st.db.Fetch(ctx, tx, &rows, `UPDATE a2a_push_configs q SET attempts = q.attempts + 1,
			next_attempt_at = now() + make_interval(secs => $1::float8)
		FROM (SELECT c.id, (SELECT count(*) FROM task_messages m WHERE m.task_id = c.task_id) AS messages
		      FROM a2a_push_configs c JOIN tasks t ON t.id = c.task_id
		      WHERE c.next_attempt_at <= now() AND `+pushDue+`
		      ORDER BY c.next_attempt_at LIMIT 1 FOR UPDATE OF c SKIP LOCKED) d
		WHERE q.id = d.id
		RETURNING q.id::text AS id, q.org_id, q.agent_id, q.task_id::text AS task_id, q.url, q.token, q.auth_scheme,
			q.credentials, q.created_at, q.attempts, d.messages`, lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("board: claim a push config: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// nextPushIn is how long until the next config that is due may be tried;
// nil when none is due.
func (st store) nextPushIn(ctx context.Context, tx bun.IDB) (*time.Duration, error) {
	var secs []float64
	err := st.db.Fetch(ctx, tx, &secs, `SELECT greatest(0, extract(epoch FROM min(c.next_attempt_at) - now()))::float8
		FROM a2a_push_configs c JOIN tasks t ON t.id = c.task_id WHERE `+pushDue+` HAVING count(*) > 0`)
	if err != nil || len(secs) == 0 {
		return nil, err
	}
	d := time.Duration(secs[0] * float64(time.Second))
	return &d, nil
}

// remoteWork lists, oldest first, the tasks remote agents may take now:
// delegated to one and claimable, or held by one and followed by no live
// lease (its follower died, or it was stopped). An agent that may not work
// now (paused, banned, replaced, a kill switch on, out of the project) has
// none, so that its work waits without a refused call every round. At
// most limit.
func (st store) remoteWork(ctx context.Context, tx bun.IDB, limit int) ([]remoteTask, error) {
	var out []remoteTask
	err := st.db.Fetch(ctx, tx, &out, `SELECT t.id::text AS task_id, r.agent_id, r.org_id, rt.remote_task_id, rt.remote_context_id, rt.question, rt.answered
		FROM a2a_remotes r JOIN tasks t ON t.delegate_to = r.agent_id
		LEFT JOIN a2a_remote_tasks rt ON rt.task_id = t.id
		WHERE ((t.status = 'submitted' AND NOT t.deferred) OR (t.status = 'working' AND t.assignee = r.agent_id))
		  AND (rt.lease_until IS NULL OR rt.lease_until < now())
		  AND `+identity.StandsSQL("r.agent_id", "t.project_id")+`
		ORDER BY t.updated_at LIMIT $1`, limit)
	return out, err
}
