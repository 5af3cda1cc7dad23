package board

import "github.com/pactboard/pact/core/db"

// The agents' cursor over task changes (migration 022, docs/events.md "The
// cursor"), in pgx's dialect ($n).

// horizonSQL is the cursor's horizon: the oldest transaction still open.
// Every change below it has committed or never will, so no change can
// appear below it later; a reader hands out only changes below it
// (migration 022, docs/events.md "The cursor").
const horizonSQL = `pg_snapshot_xmin(pg_current_snapshot())::text::bigint`

// ownXactSQL is the calling transaction's own id, 0 before it wrote.
const ownXactSQL = `coalesce(pg_current_xact_id_if_assigned()::text::bigint, 0)`

// visibleSQL is the condition on t.change_xact of the changes a reader may
// hand out: below the horizon, or its own.
const visibleSQL = `(t.change_xact < ` + horizonSQL + ` OR t.change_xact = ` + ownXactSQL + `)`

// headStep reads into head the head of projects: their last change below
// the horizon.
func headStep(projects []string, head *int64) db.Step {
	return db.Step{SQL: `SELECT coalesce(max(change_xact), 0) FROM tasks WHERE project_id = ANY($1) AND change_xact < ` + horizonSQL,
		Args: []any{projects}, Rows: db.OneRow(head)}
}
