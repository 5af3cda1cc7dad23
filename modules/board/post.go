package board

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addPost(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_post", Title: "Post a task",
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
	Body         string         `json:"body,omitempty" jsonschema:"What to do, with the context the assignee needs. Markdown."`
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
	who, err := loadCaller(ctx, tx, c.AgentID)
	if err != nil {
		return postOut{}, err
	}
	if err := projectFor(who, a.ProjectID); err != nil {
		return postOut{}, err
	}
	p, err := loadProject(ctx, tx, a.ProjectID)
	if err != nil {
		return postOut{}, err
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
	a.Title = strings.TrimSpace(a.Title)
	if a.Title == "" || len([]rune(a.Title)) > 300 {
		return postOut{}, errs.E(errs.InvalidRequest, "a task needs a title of 1-300 characters")
	}
	if err := mandate.ValidScope(a.Action); err != nil || strings.Contains(a.Action, "@") {
		return postOut{}, errs.E(errs.InvalidRequest, "action %q must be a project-relative action such as task.work", a.Action)
	}
	cost, err := mandate.CheckAmounts(a.Cost, "cost")
	if err != nil {
		return postOut{}, err
	}
	if a.ParentTaskID != nil && *a.ParentTaskID != "" {
		parent, err := getTask(ctx, tx, *a.ParentTaskID, false)
		if err != nil {
			return postOut{}, err
		}
		if parent == nil || parent.ProjectID != p.ID {
			return postOut{}, errs.E(errs.ProjectMismatch, "parent task %s is not in project %s", *a.ParentTaskID, p.ID)
		}
	} else {
		a.ParentTaskID = nil
	}
	var delegated *mandate.Mandate
	var target *caller
	if a.DelegateTo != nil && *a.DelegateTo != "" {
		if target, err = delegateTarget(ctx, tx, c.AgentID, *a.DelegateTo, p.ID); err != nil {
			return postOut{}, err
		}
		scope := a.ChildScope
		if len(scope) == 0 {
			scope = []string{mandate.BoardScope(a.Action, p.ID), mandate.BoardScope("task.read", p.ID)}
		}
		limits, err := mandate.CheckAmounts(a.ChildLimits, "child_limits")
		if err != nil {
			return postOut{}, err
		}
		if delegated, err = m.mandates.IssueChild(ctx, tx, chain, mandate.ChildInput{Holder: target.ID, Scope: scope, Limits: limits}); err != nil {
			return postOut{}, err
		}
	}
	spend := map[string]float64{"tasks": 1}
	for k, v := range cost {
		spend[k] += v
	}
	if _, err := m.mandates.Consume(ctx, tx, chain, spend, true); err != nil {
		return postOut{}, err
	}
	needsApproval, err := m.needsApproval(ctx, c, p.OrgID, a.Action)
	if err != nil {
		return postOut{}, err
	}
	id := uuid.NewString()
	status := submitted
	if needsApproval {
		status = authRequired
	}
	var delegatedID *string
	if delegated != nil {
		s := delegated.ID.String()
		delegatedID = &s
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO tasks (id, project_id, title, body, action, created_by, mandate_id,
		delegate_to, delegated_mandate_id, status, parent_task_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, p.ID, a.Title, a.Body, a.Action, c.AgentID, chain.Leaf().ID, a.DelegateTo, delegatedID, status, a.ParentTaskID)
	if err != nil {
		return postOut{}, err
	}
	c.Entry.TaskID = id
	if !needsApproval {
		ev := events.Event{Kind: events.KindTask, OrgID: p.OrgID, ProjectID: p.ID, TaskID: id}
		if a.DelegateTo != nil {
			ev.AgentID = *a.DelegateTo
		}
		if err := events.Publish(ctx, tx, ev); err != nil {
			return postOut{}, err
		}
	}
	notes := []string{}
	if needsApproval {
		if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: p.ID, TaskID: id,
			AgentID: c.AgentID, Title: a.Title, Detail: a.Action}); err != nil {
			return postOut{}, err
		}
		notes = append(notes, `Action "`+a.Action+`" needs a human approval in the Admin UI before anyone can claim it.`)
	}
	if target != nil {
		if wakeless[target.Client] {
			if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.AwaitingSession, ProjectID: p.ID, TaskID: id,
				AgentID: target.ID, Title: a.Title, Detail: target.ID + " (" + target.Client + ") starts it only when someone opens it"}); err != nil {
				return postOut{}, err
			}
		}
		notes = append(notes, "Tell the user: "+target.ID+" starts this when it next pulls work (its next session, or its Runner). "+
			"A Runner holding pact_events hears of it at once; the board cannot start an agent that is not running.")
	} else {
		notes = append(notes, "Tell the user: the task waits on the board until an agent in this project pulls it.")
	}
	out := postOut{TaskID: id, Status: status, Note: strings.Join(notes, " ")}
	if delegatedID != nil {
		out.DelegatedMandateID = *delegatedID
	}
	return out, nil
}

// delegateTarget checks agent id that agent me delegates a task to or
// messages: another agent of the project, not banned.
func delegateTarget(ctx context.Context, tx bun.IDB, me, id, projectID string) (*caller, error) {
	unknown := errs.E(errs.AgentUnknown, "agent %s is not registered in project %s", id, projectID)
	if id == me {
		return nil, unknown
	}
	var status []string
	if err := tx.NewRaw(`SELECT status FROM agents WHERE id = ?`, id).Scan(ctx, &status); err != nil {
		return nil, err
	}
	if len(status) == 0 || status[0] == "banned" {
		return nil, unknown
	}
	target, err := loadCaller(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if !target.In(projectID) {
		return nil, unknown
	}
	return target, nil
}

// needsApproval reports whether an approval rule of the organization covers
// action (docs/specs/behavior.md §5.8).
func (m *Module) needsApproval(ctx context.Context, c *kernel.Call, org, action string) (bool, error) {
	var rules []string
	if err := c.Tx.NewRaw(`SELECT action FROM approval_actions WHERE org_id = ?`, org).Scan(ctx, &rules); err != nil {
		return false, err
	}
	for _, r := range rules {
		if mandate.ActionCovers(r, action) {
			return true, nil
		}
	}
	return false, nil
}
