package board

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
)

// pact_list's page, in pgx's dialect ($n).

// listFilters are pact_list's filters, each a condition on task t for agent
// $1.
var listFilters = map[string]string{
	"open": `t.status = 'submitted' AND t.assignee IS NULL AND (t.delegate_to IS NULL OR t.delegate_to = $1)`,
	"mine": `(t.assignee = $1 OR t.delegate_to = $1 OR t.created_by = $1) AND task_status_is_open(t.status)`,
	"done": `(t.assignee = $1 OR t.delegate_to = $1 OR t.created_by = $1) AND task_status_is_terminal(t.status)`,
	"all":  `$1::text = $1`,
}

// listStep reads pact_list's page for agent in projects after cursor, at
// most n tasks matching filter (a key of listFilters), only the subtasks of
// parent unless it is "", into page, and the tasks of projects deferred to
// people into deferred.
func listStep(agent string, projects []string, cursor int64, n int, filter, parent string, page, deferred *[]task) db.Step {
	where := listFilters[filter]
	// $1 the caller, $2 its readable projects, $3 the cursor, $4 the page
	// size, $5 the parent task.
	args := []any{agent, projects, cursor, n}
	if parent != "" {
		where += ` AND t.parent_task_id = $5::uuid`
		args = append(args, parent)
	}
	// The cursor counts in change_xact and passes only changes below the
	// horizon (horizonSQL), in whole transactions: the page takes every
	// change of the last transaction it reaches, so next_since never
	// splits one.
	tasksSQL := `WITH h AS (SELECT ` + horizonSQL + ` AS x),
		cand AS (SELECT t.change_xact FROM tasks t, h
			WHERE t.project_id = ANY($2) AND t.change_xact > $3 AND (t.change_xact < h.x OR t.change_xact = ` + ownXactSQL + `)
			  AND ` + where + `
			ORDER BY t.change_xact, t.change_seq LIMIT $4),
		page_rows AS (SELECT ` + taskColumns("t") + ` FROM tasks t
			WHERE t.project_id = ANY($2) AND t.change_xact > $3 AND t.change_xact <= (SELECT max(change_xact) FROM cand)
			  AND ` + where + ` ORDER BY t.change_xact, t.change_seq),
		deferred_rows AS (SELECT ` + taskColumns("t") + ` FROM tasks t, h
			WHERE t.project_id = ANY($2) AND t.deferred AND t.change_xact > $3
			  AND (t.change_xact < h.x OR t.change_xact = ` + ownXactSQL + `)
			ORDER BY t.change_xact, t.change_seq LIMIT 200)
		SELECT true AS in_page, p.* FROM page_rows p UNION ALL SELECT false, d.* FROM deferred_rows d
		ORDER BY in_page DESC, change_xact, change_seq`
	return db.Step{SQL: tasksSQL, Args: args, Rows: func(_ *db.Tx, r pgx.Rows) error {
		var inPage bool
		var t task
		_, err := pgx.ForEachRow(r, append([]any{&inPage}, t.fields()...), func() error {
			if inPage {
				*page = append(*page, t)
			} else {
				*deferred = append(*deferred, t)
			}
			t = task{} // the next row shares nothing with this one
			return nil
		})
		return err
	}}
}

// orgTasks lists organization org's tasks through f: at most 200, most
// recently updated first.
func (st store) orgTasks(ctx context.Context, org string, f TaskFilter) ([]task, error) {
	args := []any{org}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	q := `SELECT ` + taskColumns("t") + ` FROM tasks t JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1`
	if f.Status != "" {
		q += ` AND t.status = ` + arg(f.Status)
	}
	if f.Project != "" {
		q += ` AND t.project_id = ` + arg(f.Project)
	}
	if f.Deferred {
		q += ` AND t.deferred`
	}
	if f.Open {
		q += ` AND task_status_is_open(t.status)`
	}
	if f.Agent != "" {
		a := arg(f.Agent)
		q += ` AND (t.assignee = ` + a + ` OR t.delegate_to = ` + a + ` OR t.created_by = ` + a + `)`
	}
	q += ` ORDER BY t.updated_at DESC, t.id LIMIT 200`
	var ts []task
	err := st.db.Fetch(ctx, st.db, &ts, q, args...)
	return ts, err
}
