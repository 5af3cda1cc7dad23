package board

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
)

// The task list (Service.Tasks), in pgx's dialect ($n): one query, listSQL,
// for an agent's list and for people's.

// listQuery is which tasks listSQL selects. An agent's: the tasks of
// projects that match filter for agent, after cursor since, at most limit,
// only the subtasks of parent unless it is "". People's (org set): the
// tasks of organization org that match people.
type listQuery struct {
	agent    string
	projects []string
	filter   string
	parent   string
	since    int64
	limit    int

	org    string
	people TaskFilter
}

// involvingSQL is whether agent p created, holds or was delegated task t.
func involvingSQL(p string) string {
	return `(t.assignee = ` + p + ` OR t.delegate_to = ` + p + ` OR t.created_by = ` + p + `)`
}

// listFilters are pact_list's filters, each a condition on task t for agent
// $1.
var listFilters = map[string]string{
	"open": `t.status = 'submitted' AND t.assignee IS NULL AND (t.delegate_to IS NULL OR t.delegate_to = $1)`,
	"mine": involvingSQL("$1") + ` AND task_status_is_open(t.status)`,
	"done": involvingSQL("$1") + ` AND task_status_is_terminal(t.status)`,
	"all":  `$1::text = $1`,
}

// listSQL is the statement that lists tasks, and its arguments.
//
// An agent's (its rows led by in_page: false for the deferred ones) is
// pact_list's page: the cursor counts in change_xact and passes only
// changes below the horizon (horizonSQL), in whole transactions: the page
// takes every change of the last transaction it reaches, so next_since
// never splits one. The tasks of the projects deferred to people come with
// it, at most 200.
//
// People's is their organization's tasks that match: at most 200, most
// recently updated first.
func listSQL(q listQuery) (string, []any) {
	if q.org != "" {
		args := []any{q.org}
		arg := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		where := ``
		if f := q.people; f.Status != "" {
			where += ` AND t.status = ` + arg(f.Status)
		}
		if f := q.people; f.Project != "" {
			where += ` AND t.project_id = ` + arg(f.Project)
		}
		if q.people.Deferred {
			where += ` AND t.deferred`
		}
		if q.people.Open {
			where += ` AND task_status_is_open(t.status)`
		}
		if f := q.people; f.Agent != "" {
			where += ` AND ` + involvingSQL(arg(f.Agent))
		}
		return `SELECT ` + taskColumns("t") + ` FROM tasks t JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1` +
			where + ` ORDER BY t.updated_at DESC, t.id LIMIT 200`, args
	}
	where := listFilters[q.filter]
	// $1 the caller, $2 its readable projects, $3 the cursor, $4 the page
	// size, $5 the parent task.
	args := []any{q.agent, q.projects, q.since, q.limit}
	if q.parent != "" {
		where += ` AND t.parent_task_id = $5::uuid`
		args = append(args, q.parent)
	}
	return `WITH h AS (SELECT ` + horizonSQL + ` AS x),
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
		ORDER BY in_page DESC, change_xact, change_seq`, args
}

// listStep reads an agent's list (listSQL) as a step of a pipelined round
// trip: the page into page, the deferred tasks into deferred.
func listStep(q listQuery, page, deferred *[]Task) db.Step {
	query, args := listSQL(q)
	return db.Step{SQL: query, Args: args, Rows: func(_ *db.Tx, r pgx.Rows) error {
		var inPage bool
		var t Task
		_, err := pgx.ForEachRow(r, append([]any{&inPage}, t.fields()...), func() error {
			if inPage {
				*page = append(*page, t)
			} else {
				*deferred = append(*deferred, t)
			}
			t = Task{} // the next row shares nothing with this one
			return nil
		})
		return err
	}}
}

// listTasks reads people's list (listSQL).
func (st store) listTasks(ctx context.Context, tx bun.IDB, q listQuery) ([]Task, error) {
	query, args := listSQL(q)
	var ts []Task
	err := st.db.Fetch(ctx, tx, &ts, query, args...)
	return ts, err
}
