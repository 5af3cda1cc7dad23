package board

import (
	"context"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addList(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_list", Effect: kernel.Reads, RoundTrips: 3, MandateArg: "mandate_id", Title: "List tasks",
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
	Limit        *int       `json:"limit,omitempty" jsonschema:"How many tasks at most (1-200, default 20)."`
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
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return listOut{}, err
	}
	q := TaskQuery{Filter: string(a.Filter), Limit: a.Limit}
	if a.ProjectID != nil {
		q.ProjectID = *a.ProjectID
	}
	if a.Since != nil {
		q.Since = *a.Since
	}
	if a.ParentTaskID != nil {
		q.ParentTaskID = *a.ParentTaskID
	}
	got, err := m.svc.Tasks(ctx, c.Tx, by, q)
	if err != nil {
		return listOut{}, err
	}
	return listOut{Tasks: taskViews(got.Tasks), Deferred: taskViews(got.Deferred), NextSince: got.NextSince,
		HasMore: got.HasMore, Inbox: messageViews(got.Inbox, true), Head: got.Head}, nil
}
