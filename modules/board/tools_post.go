package board

import (
	"context"
	"strings"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addPost(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_post", Effect: kernel.Adds, RoundTrips: 5, MandateArg: "mandate_id", Title: "Post a task",
		Description: "Post a task to a project's board. Name an agent in delegate_to to hand it the task " +
			"together with a narrower mandate (child_scope, child_limits) cut from yours; it starts when that " +
			"agent next pulls work. Actions a person must approve (deploys, finance, customer messages) wait " +
			"for approval before anyone can claim them.",
	}, m.post)
}

type postIn struct {
	ProjectID    string         `json:"project_id" jsonschema:"The project to post to (one of yours, see pact_whoami)."`
	Title        string         `json:"title" jsonschema:"A short title people and agents recognise the task by (at most 300 characters)."`
	MandateID    string         `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on. It must cover task.post on the project."`
	Body         string         `json:"body,omitempty" jsonschema:"What to do, with the context the assignee needs. Markdown, at most 100000 characters."`
	Action       string         `json:"action,omitempty" jsonschema:"What kind of work it is, e.g. \"task.work\" (default), \"report.brief\", \"deploy.web\". The claimer's mandate must cover it."`
	ParentTaskID *string        `json:"parent_task_id,omitempty" jsonschema:"Make this a subtask of that task (same project)."`
	DelegateTo   *string        `json:"delegate_to,omitempty" jsonschema:"An agent of the project to hand the task to, with a delegated mandate."`
	ChildScope   []string       `json:"child_scope,omitempty" jsonschema:"Scopes of the delegated mandate; default [\"<action>@project:<p>\", \"task.read@project:<p>\"]. Must be within yours."`
	ChildLimits  kernel.Amounts `json:"child_limits,omitempty" jsonschema:"Budgets of the delegated mandate, e.g. {\"runs\": 2, \"turns\": 100}; each at most what you hold."`
	Cost         kernel.Amounts `json:"cost,omitempty" jsonschema:"What posting spends from your budgets besides one \"tasks\", e.g. {\"cost_usd\": 0.5}."`
}

type postOut struct {
	TaskID             string `json:"task_id" jsonschema:"The new task's id."`
	Status             string `json:"status" jsonschema:"submitted, or auth_required while it waits for a person's approval."`
	Note               string `json:"note" jsonschema:"What happens next, to tell the user."`
	DelegatedMandateID string `json:"delegated_mandate_id,omitempty" jsonschema:"The mandate delegated with the task (delegate_to only); revoke it with pact_revoke."`
}

func (m *Module) post(ctx context.Context, c *kernel.Call, a postIn) (postOut, error) {
	if a.ProjectID == "" {
		return postOut{}, errs.E(errs.ProjectRequired, "pact_post needs project_id")
	}
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return postOut{}, err
	}
	got, err := m.svc.Post(ctx, c.Tx, by, PostInput{ProjectID: a.ProjectID, Title: a.Title, Body: a.Body, Action: a.Action,
		ParentTaskID: a.ParentTaskID, DelegateTo: a.DelegateTo, ChildScope: a.ChildScope, ChildLimits: a.ChildLimits, Cost: a.Cost})
	if err != nil {
		return postOut{}, err
	}
	c.Entry.TaskID = got.TaskID
	notes := []string{}
	if got.NeedsApproval {
		notes = append(notes, `Action "`+got.Action+`" needs a human approval in the Admin UI before anyone can claim it.`)
	}
	if got.Delegate != "" {
		notes = append(notes, "Tell the user: "+got.Delegate+" starts this when it next pulls work (its next session, or its Runner). "+
			"A Runner holding pact_events hears of it at once; the board cannot start an agent that is not running.")
	} else {
		notes = append(notes, "Tell the user: the task waits on the board until an agent in this project pulls it.")
	}
	return postOut{TaskID: got.TaskID, Status: got.Status, Note: strings.Join(notes, " "),
		DelegatedMandateID: got.DelegatedMandateID}, nil
}
