package board

import (
	"context"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addList(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_list", RoundTrips: 4, MandateArg: "mandate_id", Title: "List tasks",
		Description: "List tasks of your projects: open ones you may claim (filter open, the default), yours " +
			"(mine), closed ones (done) or everything (all), plus tasks deferred to people and your unread " +
			"messages (inbox). Pass next_since back as since to see only what changed.",
		Types: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[listFilter](): enum("open", "mine", "done", "all")},
	}, m.list)
}

// listFilter is one of filters' keys.
type listFilter string

type listIn struct {
	MandateID    string     `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on. It must cover task.read on the projects to list."`
	Filter       listFilter `json:"filter,omitempty" jsonschema:"open (claimable by you), mine (yours, not closed), done (yours, closed) or all."`
	ProjectID    *string    `json:"project_id,omitempty" jsonschema:"Only this project."`
	Since        *int64     `json:"since,omitempty" jsonschema:"The next_since of your previous pact_list: only tasks changed after it."`
	Limit        *int       `json:"limit,omitempty" jsonschema:"How many tasks at most (1-200, default 50)."`
	ParentTaskID *string    `json:"parent_task_id,omitempty" jsonschema:"Only the subtasks of this task."`
}

type listOut struct {
	Tasks     []taskView    `json:"tasks" jsonschema:"The tasks that match, oldest change first (deferred ones are in deferred)."`
	Deferred  []taskView    `json:"deferred" jsonschema:"Tasks of these projects waiting for people."`
	NextSince int64         `json:"next_since" jsonschema:"Pass it back as since to see only what changed after this answer."`
	HasMore   bool          `json:"has_more" jsonschema:"Whether more tasks match than limit allowed: call again with since=next_since."`
	Inbox     []messageView `json:"inbox" jsonschema:"Your unread messages (pact_message reads a thread and marks them read)."`
	Head      int64         `json:"head" jsonschema:"The latest change number in these projects."`
}

var filters = map[string]string{
	"open": `t.status = 'submitted' AND t.assignee IS NULL AND (t.delegate_to IS NULL OR t.delegate_to = $1)`,
	"mine": `(t.assignee = $1 OR t.delegate_to = $1 OR t.created_by = $1) AND task_status_is_open(t.status)`,
	"done": `(t.assignee = $1 OR t.delegate_to = $1 OR t.created_by = $1) AND task_status_is_terminal(t.status)`,
	"all":  `$1::text = $1`,
}

func (m *Module) list(ctx context.Context, c *kernel.Call, a listIn) (listOut, error) {
	if a.Filter == "" {
		a.Filter = "open"
	}
	tx := c.Tx
	chain, err := m.verify(ctx, c, a.MandateID)
	if err != nil {
		return listOut{}, err
	}
	who := c.Caller
	readable := readableProjects(who, chain)
	if a.ProjectID != nil && *a.ProjectID != "" {
		if !contains(readable, *a.ProjectID) {
			return listOut{}, errs.E(errs.ProjectMismatch, "agent %s cannot read project %s", who.ID, *a.ProjectID)
		}
		readable = []string{*a.ProjectID}
	}
	if len(readable) == 1 {
		c.Entry.ProjectID = readable[0]
	}
	n := 50
	if a.Limit != nil {
		n = min(max(*a.Limit, 1), 200)
	}
	var cursor int64
	if a.Since != nil && *a.Since > 0 {
		cursor = *a.Since
	}
	where := filters[string(a.Filter)]
	// $1 the caller, $2 its readable projects, $3 the cursor, $4 the page
	// size, $5 the parent task.
	args := []any{who.ID, readable, cursor, n}
	if a.ParentTaskID != nil && *a.ParentTaskID != "" {
		parent, err := m.getTask(ctx, tx, *a.ParentTaskID, false)
		if err != nil {
			return listOut{}, err
		}
		if parent == nil || !contains(readable, parent.ProjectID) {
			return listOut{}, errs.E(errs.NotFound, "task %s does not exist", *a.ParentTaskID)
		}
		where += ` AND t.parent_task_id = $5::uuid`
		args = append(args, parent.ID)
	}
	// One round trip (docs/benchmarks.md, "Round trips"): the stale claims
	// are released, then the head, the page with the deferred tasks, and
	// the inbox are read, each a statement of its own so that it sees the
	// release, its rows decoded by pgx rather than built as JSON.
	var head int64
	var rows, deferredRows []task
	var unread []messageRow
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
	release, logReleased := m.releaseStaleStep(readable)
	steps := []db.Step{release,
		{SQL: `SELECT coalesce(max(change_xact), 0) FROM tasks WHERE project_id = ANY($1) AND change_xact < ` + horizonSQL, Args: []any{readable},
			Rows: db.OneRow(&head)},
		{SQL: tasksSQL, Args: args, Rows: func(_ *db.Tx, r pgx.Rows) error {
			var inPage bool
			var t task
			_, err := pgx.ForEachRow(r, append([]any{&inPage}, t.fields()...), func() error {
				if inPage {
					rows = append(rows, t)
				} else {
					deferredRows = append(deferredRows, t)
				}
				t = task{} // the next row shares nothing with this one
				return nil
			})
			return err
		}},
		{SQL: `SELECT * FROM (` + unreadSQL + `) u ORDER BY id`, Args: []any{who.ID, readable, ""}, Rows: scanUnread(&unread)},
	}
	if err := tx.Pipeline(ctx, steps...); err != nil {
		return listOut{}, err
	}
	if err := logReleased(ctx, tx); err != nil {
		return listOut{}, err
	}
	tasks, deferred := []taskView{}, []taskView{}
	// The cursor passes no change above the head (the horizon's): this
	// call's own changes, and changes of transactions that ended after the
	// head was read, come again next time rather than never.
	next := cursor
	for i := range rows {
		next = max(next, min(rows[i].ChangeXact, head))
		if !rows[i].Deferred {
			tasks = append(tasks, rows[i].summary())
		}
	}
	for i := range deferredRows {
		deferred = append(deferred, deferredRows[i].summary())
	}
	inbox := make([]messageView, 0, len(unread))
	for _, r := range unread {
		inbox = append(inbox, r.view(true))
	}
	return listOut{Tasks: tasks, Deferred: deferred, NextSince: next, HasMore: len(rows) >= n, Inbox: inbox,
		Head: head}, nil
}

// readableProjects are the caller's projects whose task.read the chain's
// leaf covers (a mandate naming a project the agent is not registered in
// gives nothing there).
func readableProjects(who *caller, chain mandate.Chain) []string {
	out := []string{}
	for _, p := range who.Projects {
		if mandate.AnyCovers(chain.Leaf().Scope, mandate.BoardScope("task.read", p)) {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scanUnread is a Step.Rows that appends unreadSQL's rows to out.
func scanUnread(out *[]messageRow) func(*db.Tx, pgx.Rows) error {
	return func(_ *db.Tx, r pgx.Rows) error {
		var u messageRow
		_, err := pgx.ForEachRow(r, []any{&u.ID, &u.TaskID, &u.TaskTitle, &u.FromAgent, &u.FromHuman, &u.ToAgent,
			&u.Body, &u.CreatedAt, &u.ReadAt}, func() error {
			*out = append(*out, u)
			u = messageRow{}
			return nil
		})
		return err
	}
}
