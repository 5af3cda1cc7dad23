package board

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
)

// What pact_events hands out and waits for, in pgx's dialect ($n).

// claimableFrom selects the tasks t an agent may claim in projects after a
// cursor: open, not awaiting approval, undelegated or delegated to it. The
// arguments are the statement's placeholders for each value; answer and
// readiness share it. The cursor counts in change_xact; visible is the
// condition on t.change_xact of the changes that may be handed out.
func claimableFrom(projects, cursor, agent, visible string) string {
	return ` FROM tasks t WHERE t.project_id = ANY(` + projects + `) AND t.change_xact > ` + cursor + `
	AND ` + visible + `
	AND t.status = 'submitted' AND t.assignee IS NULL AND NOT t.deferred
	AND (t.delegate_to IS NULL OR t.delegate_to = ` + agent + `)`
}

// eventsReadySQL is whether pact_events has anything to answer for agent
// $1 watching projects $2 (tasks only unless $3, watch-only) after cursor
// $4: exactly what work would return, so a wait never ends with nothing;
// and whether claimable work has committed that the horizon still holds
// back (then the wait looks again soon: events.ErrNotYet).
var eventsReadySQL = `SELECT EXISTS (SELECT 1` + unreadFrom("$1", "$2", "''") + `)
	OR (NOT $3::boolean AND EXISTS (SELECT 1` + claimableFrom("$2", "$4", "$1", "t.change_xact < "+horizonSQL) + `)),
	NOT $3::boolean AND EXISTS (SELECT 1` + claimableFrom("$2", "$4", "$1", "true") + `)`

// eventsReady reads eventsReadySQL: whether pact_events has anything for
// agent, and whether claimable work has committed that the horizon holds
// back.
func (st store) eventsReady(ctx context.Context, agent string, projects []string, watchOnly bool, cursor int64) (ready, committed bool, err error) {
	err = st.db.FetchInto(ctx, st.db, eventsReadySQL, []any{agent, projects, watchOnly, cursor}, &ready, &committed)
	return ready, committed, err
}

// claimableStep reads into out the first 50 tasks agent may claim in
// projects after cursor, oldest change first.
func claimableStep(projects []string, cursor int64, agent string, out *[]Task) db.Step {
	return db.Step{SQL: `SELECT ` + taskColumns("t") + claimableFrom("$1", "$2", "$3", visibleSQL) +
		` ORDER BY t.change_xact, t.change_seq LIMIT 50`, Args: []any{projects, cursor, agent}, Rows: scanTasks(out)}
}

// restOfXact returns the tasks agent may claim in projects after cursor
// that the transaction of last changed after it.
func (st store) restOfXact(ctx context.Context, tx bun.IDB, projects []string, cursor int64, agent string, last Task) ([]Task, error) {
	var rest []Task
	if err := st.db.Fetch(ctx, tx, &rest, `SELECT `+taskColumns("t")+claimableFrom("$1", "$2", "$3", visibleSQL)+
		` AND t.change_xact = $4 AND t.change_seq > $5 ORDER BY t.change_seq`, projects, cursor, agent,
		last.ChangeXact, last.ChangeSeq); err != nil {
		return nil, fmt.Errorf("board: the rest of a transaction's tasks: %w", err)
	}
	return rest, nil
}

// offersStep reads into out the tasks offered to agent whose lease runs.
func offersStep(agent string, out *[]string) db.Step {
	return db.Step{SQL: `SELECT task_id::text FROM task_offers WHERE agent_id = $1 AND lease_until > now()`, Args: []any{agent},
		Rows: func(_ *db.Tx, r pgx.Rows) error {
			var err error
			*out, err = pgx.CollectRows(r, pgx.RowTo[string])
			return err
		}}
}
