package board

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addPost(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_post", RoundTrips: 6, MandateArg: "mandate_id", Title: "Post a task",
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
	if a.Action == "" {
		a.Action = "task.work"
	}
	tx := c.Tx
	if a.ProjectID == "" {
		return postOut{}, errs.E(errs.ProjectRequired, "pact_post needs project_id")
	}
	chain, err := m.verify(ctx, c, a.MandateID)
	if err != nil {
		return postOut{}, err
	}
	who := c.Caller
	if err := projectFor(who, a.ProjectID); err != nil {
		return postOut{}, err
	}
	p := who.Project(a.ProjectID) // read by the gate
	if p == nil {
		return postOut{}, errs.E(errs.ProjectMismatch, "agent %s is not registered in project %s", who.ID, a.ProjectID)
	}
	c.Entry.ProjectID = p.ID
	if err := refuseFrozen(p); err != nil {
		return postOut{}, err
	}
	if err := refuseRunnerOnProduction(who, p); err != nil {
		return postOut{}, err
	}
	if err := requireScope(chain, mandate.BoardScope("task.post", p.ID)); err != nil {
		return postOut{}, err
	}
	out, err := m.svc.Post(ctx, tx, agentActor(who), chain, p, a)
	if err != nil {
		return postOut{}, err
	}
	c.Entry.TaskID = out.TaskID
	return out, nil
}

// delegateTarget checks agent id that agent me delegates a task to or
// messages: another agent of the project, not banned.
func (s *Service) delegateTarget(ctx context.Context, tx bun.IDB, me, id, projectID string) (*caller, error) {
	unknown := errs.E(errs.AgentUnknown, "agent %s is not registered in project %s", id, projectID)
	if id == me {
		return nil, unknown
	}
	row, err := s.st.agentRow(ctx, tx, id)
	if err != nil {
		return nil, fmt.Errorf("board.delegateTarget: %w", err)
	}
	if row == nil || row.Status == "banned" {
		return nil, unknown
	}
	target := &caller{ID: id, OrgID: row.OrgID, Client: row.Client, Projects: row.Projects}
	if !target.In(projectID) {
		return nil, unknown
	}
	return target, nil
}
