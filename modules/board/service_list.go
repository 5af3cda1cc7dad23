package board

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// defaultPage is how many tasks pact_list answers when the caller names no
// limit. An agent reads the whole answer into its context, and a task's
// body may hold 100,000 characters, so the page is sized for a model
// choosing what to do next, not for a dump: has_more and next_since page
// the rest (docs/benchmarks.md, "Pages sized for agents"). The original
// answered 50.
const defaultPage = 20

// TaskQuery is which tasks Tasks lists. An agent's list (pact_list) is
// relative to it; a person's (the Admin API's task list, pact-admin
// task-list) is their organization's, through People.
type TaskQuery struct {
	// Filter is open (claimable by the agent, the default), mine (its own,
	// not closed), done (its own, closed) or all.
	Filter string
	// ProjectID lists one of the projects the agent may read, not all.
	ProjectID string
	// Since is the NextSince of the agent's previous list: only tasks
	// changed after it.
	Since int64
	// Limit is how many tasks at most (1-200; nil: defaultPage).
	Limit *int
	// ParentTaskID lists only that task's subtasks.
	ParentTaskID string
	// People narrows a person's list.
	People TaskFilter
}

// TaskFilter narrows a person's task list; zero fields do not.
type TaskFilter struct {
	Status, Project, Agent string
	Deferred, Open         bool
}

// TaskList is what Tasks found. A person's has Tasks only: at most 200,
// most recently updated first.
type TaskList struct {
	// Tasks match, oldest change first; deferred ones are in Deferred.
	Tasks []Task
	// Deferred are the tasks of the projects read that wait for people.
	Deferred []Task
	// NextSince is the cursor after this list; HasMore says more tasks
	// matched than the limit allowed.
	NextSince int64
	HasMore   bool
	// Inbox is the agent's unread messages.
	Inbox []TaskMessage
	// Head is the latest change in the projects read.
	Head int64
}

// statuses are the task statuses, as a person's list names them.
var taskStatuses = []string{submitted, working, inputRequired, authRequired, completed, failed, canceled, rejected}

// Tasks lists tasks: the one list behind pact_list, the Admin API's task
// list and pact-admin task-list, read by one query (listSQL).
//
// For an agent (docs/specs/behavior.md §6.3), the tasks of the projects
// whose task.read its chain covers, after q.Since, in whole transactions
// of changes, with the tasks deferred to people and its unread messages;
// stale claims in those projects are released first. tx is the call's
// pipelined transaction: the release and every read are one round trip.
//
// For a person, their organization's tasks through q.People (tx nil: the
// pool).
func (s *Service) Tasks(ctx context.Context, tx *db.Tx, by Actor, q TaskQuery) (TaskList, error) {
	if !by.IsAgent() {
		return s.peopleTasks(ctx, tx, by, q.People)
	}
	if q.Filter == "" {
		q.Filter = "open"
	}
	who := by.Caller
	readable := readableProjects(who, by.Chain)
	if q.ProjectID != "" {
		if !contains(readable, q.ProjectID) {
			return TaskList{}, errs.E(errs.ProjectMismatch, "agent %s cannot read project %s", who.ID, q.ProjectID)
		}
		readable = []string{q.ProjectID}
	}
	if len(readable) == 1 {
		by.found(readable[0], "")
	}
	n := defaultPage
	if q.Limit != nil {
		n = min(max(*q.Limit, 1), 200)
	}
	cursor := max(q.Since, 0)
	parent := ""
	if q.ParentTaskID != "" {
		p, err := s.st.getTask(ctx, tx, q.ParentTaskID, false)
		if err != nil {
			return TaskList{}, err
		}
		if p == nil || !contains(readable, p.ProjectID) {
			return TaskList{}, errs.E(errs.NotFound, "task %s does not exist", q.ParentTaskID)
		}
		parent = p.ID
	}
	// One round trip (docs/benchmarks.md, "Round trips"): the stale claims
	// are released, then the head, the page with the deferred tasks, and
	// the inbox are read, each a statement of its own so that it sees the
	// release, its rows decoded by pgx rather than built as JSON.
	var head int64
	var rows, deferred []Task
	var unread []TaskMessage
	release, logReleased := s.releaseStaleStep(readable)
	steps := []db.Step{release, headStep(readable, &head),
		listStep(listQuery{agent: who.ID, projects: readable, filter: q.Filter, parent: parent, since: cursor, limit: n},
			&rows, &deferred),
		unreadStep(who.ID, readable, &unread)}
	if err := tx.Pipeline(ctx, steps...); err != nil {
		return TaskList{}, err
	}
	if err := logReleased(ctx, tx); err != nil {
		return TaskList{}, err
	}
	out := TaskList{Tasks: []Task{}, Deferred: deferred, HasMore: len(rows) >= n, Inbox: unread, Head: head}
	// The cursor passes no change above the head (the horizon's): this
	// call's own changes, and changes of transactions that ended after the
	// head was read, come again next time rather than never.
	out.NextSince = cursor
	for i := range rows {
		out.NextSince = max(out.NextSince, min(rows[i].ChangeXact, head))
		if !rows[i].Deferred {
			out.Tasks = append(out.Tasks, rows[i])
		}
	}
	return out, nil
}

// peopleTasks is Tasks for a person: their organization's tasks through f.
func (s *Service) peopleTasks(ctx context.Context, tx *db.Tx, by Actor, f TaskFilter) (TaskList, error) {
	if f.Status != "" && !slices.Contains(taskStatuses, f.Status) {
		return TaskList{}, errs.E(errs.InvalidRequest, "status must be one of %s, not %q", strings.Join(taskStatuses, ", "), f.Status)
	}
	var idb bun.IDB = s.db
	if tx != nil {
		idb = tx
	}
	ts, err := s.st.listTasks(ctx, idb, listQuery{org: by.OrgID, people: f})
	if err != nil {
		return TaskList{}, wrapf(err, "board.listTasks")
	}
	return TaskList{Tasks: ts}, nil
}

// Task is task id of organization org, as people see it; not_found for
// another organization's (tx nil: the pool).
func (s *Service) Task(ctx context.Context, tx bun.IDB, org, id string) (*Task, error) {
	if tx == nil {
		tx = s.db
	}
	t, err := s.st.getTask(ctx, tx, id, false)
	if err != nil {
		return nil, err
	}
	if t != nil {
		in, err := s.st.inOrg(ctx, tx, t.ProjectID, org)
		if err != nil {
			return nil, wrapf(err, "board.orgTask")
		}
		if !in {
			t = nil
		}
	}
	if t == nil {
		return nil, errs.E(errs.NotFound, "task %s does not exist", id)
	}
	return t, nil
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
	return slices.Contains(list, s)
}
