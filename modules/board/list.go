package board

import (
	"context"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

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
	parent := ""
	if a.ParentTaskID != nil && *a.ParentTaskID != "" {
		p, err := m.st.getTask(ctx, tx, *a.ParentTaskID, false)
		if err != nil {
			return listOut{}, err
		}
		if p == nil || !contains(readable, p.ProjectID) {
			return listOut{}, errs.E(errs.NotFound, "task %s does not exist", *a.ParentTaskID)
		}
		parent = p.ID
	}
	// One round trip (docs/benchmarks.md, "Round trips"): the stale claims
	// are released, then the head, the page with the deferred tasks, and
	// the inbox are read, each a statement of its own so that it sees the
	// release, its rows decoded by pgx rather than built as JSON.
	var head int64
	var rows, deferredRows []task
	var unread []messageRow
	release, logReleased := m.svc.releaseStaleStep(readable)
	steps := []db.Step{release, headStep(readable, &head),
		listStep(who.ID, readable, cursor, n, string(a.Filter), parent, &rows, &deferredRows),
		unreadStep(who.ID, readable, &unread)}
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
