package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// PostInput is a task an agent posts.
type PostInput struct {
	ProjectID, Title, Body string
	// Action is what kind of work it is; "" is task.work.
	Action string
	// ParentTaskID makes it a subtask of that task (of the same project).
	ParentTaskID *string
	// DelegateTo hands it to that agent of the project, with a mandate cut
	// from the poster's: ChildScope (default the action and task.read on
	// the project) and ChildLimits.
	DelegateTo  *string
	ChildScope  []string
	ChildLimits map[string]any
	// Cost is what posting spends besides one "tasks".
	Cost map[string]any
}

// Posted is a task Post put on the board.
type Posted struct {
	TaskID string
	// Status is submitted, or auth_required while it waits for a person's
	// approval (then NeedsApproval).
	Status        string
	NeedsApproval bool
	Action        string
	// Delegate is the agent it was handed to ("" for none), with the
	// mandate delegated with it.
	Delegate           string
	DelegatedMandateID string
}

// Post puts a task on project in.ProjectID's board for by, an agent acting
// under its verified chain (docs/specs/behavior.md §6.2): the project must
// be one of the agent's, not frozen, not production for a Runner, and the
// chain must cover task.post on it. It checks the task, delegates it with
// a narrower mandate cut from the chain when in names an agent, spends one
// "tasks" and in's cost, and holds it for a person's approval when an
// approval rule of the organization covers its action (§5.8).
func (s *Service) Post(ctx context.Context, tx *db.Tx, by Actor, in PostInput) (Posted, error) {
	a, who, chain := in, by.Caller, by.Chain
	if a.Action == "" {
		a.Action = "task.work"
	}
	if err := projectFor(who, a.ProjectID); err != nil {
		return Posted{}, err
	}
	p := who.Project(a.ProjectID) // read by the gate
	if p == nil {
		return Posted{}, errs.E(errs.ProjectMismatch, "agent %s is not registered in project %s", who.ID, a.ProjectID)
	}
	by.found(p.ID, "")
	if err := refuseFrozen(p); err != nil {
		return Posted{}, err
	}
	if err := refuseRunnerOnProduction(who, p); err != nil {
		return Posted{}, err
	}
	if err := requireScope(chain, mandate.BoardScope("task.post", p.ID)); err != nil {
		return Posted{}, err
	}
	// Redacted before the length check, so the stored title is within it.
	a.Title = strings.TrimSpace(redact.Text(a.Title))
	a.Body = redact.Text(a.Body)
	if a.Title == "" || len([]rune(a.Title)) > 300 {
		return Posted{}, errs.E(errs.InvalidRequest, "a task needs a title of 1-300 characters")
	}
	if err := checkTaskBody(a.Body); err != nil {
		return Posted{}, err
	}
	if err := mandate.ValidScope(a.Action); err != nil || strings.Contains(a.Action, "@") {
		return Posted{}, errs.E(errs.InvalidRequest, "action %q must be a project-relative action such as task.work", a.Action)
	}
	cost, err := mandate.CheckAmounts(a.Cost, "cost")
	if err != nil {
		return Posted{}, err
	}
	if a.ParentTaskID != nil && *a.ParentTaskID != "" {
		parent, err := s.st.getTask(ctx, tx, *a.ParentTaskID, false)
		if err != nil {
			return Posted{}, err
		}
		if parent == nil || parent.ProjectID != p.ID {
			return Posted{}, errs.E(errs.ProjectMismatch, "parent task %s is not in project %s", *a.ParentTaskID, p.ID)
		}
	} else {
		a.ParentTaskID = nil
	}
	var delegated *mandate.Mandate
	var target *caller
	if a.DelegateTo != nil && *a.DelegateTo != "" {
		if target, err = s.delegateTarget(ctx, tx, by.AgentID, *a.DelegateTo, p.ID); err != nil {
			return Posted{}, err
		}
		scope := a.ChildScope
		if len(scope) == 0 {
			scope = []string{mandate.BoardScope(a.Action, p.ID), mandate.BoardScope("task.read", p.ID)}
		}
		limits, err := mandate.CheckAmounts(a.ChildLimits, "child_limits")
		if err != nil {
			return Posted{}, err
		}
		if delegated, err = s.mandates.IssueChild(ctx, tx, chain, mandate.ChildInput{Holder: target.ID, Scope: scope, Limits: limits}); err != nil {
			return Posted{}, err
		}
	}
	spend := map[string]float64{"tasks": 1}
	for k, v := range cost {
		spend[k] += v
	}
	if _, err := s.mandates.Consume(ctx, tx, chain, spend, true); err != nil {
		return Posted{}, err
	}
	id := uuid.NewString()
	var delegatedID *string
	if delegated != nil {
		d := delegated.ID.String()
		delegatedID = &d
	}
	// The task, held for approval when an approval rule of the organization
	// covers its action (docs/specs/behavior.md §5.8), and, unless held, its
	// wakeup: its delegate's (events.Payload), or an offer to one holder of
	// pact_events in the project (task_offer, service_offers.go); one statement.
	ev := events.Event{Kind: events.KindTask, OrgID: p.OrgID, ProjectID: p.ID, TaskID: id}
	if a.DelegateTo != nil {
		ev.AgentID = *a.DelegateTo
	}
	wake, err := events.Payload(ev)
	if err != nil {
		return Posted{}, err
	}
	var status string
	var woken int
	// The chain is held alive in the same round trip (mandate.Hold): a
	// revocation that committed since Verify refuses the post, a later one
	// waits for it and then cancels the task (SEC-013).
	hold := mandate.HoldChain(chain)
	err = tx.Pipeline(ctx, hold.Step(), insertTaskStep(newTask{ID: id, ProjectID: p.ID, OrgID: p.OrgID, Title: a.Title,
		Body: a.Body, Action: a.Action, By: by.AgentID, MandateID: chain.Leaf().ID.String(), DelegateTo: a.DelegateTo,
		DelegatedMandateID: delegatedID, ParentTaskID: a.ParentTaskID, Wake: wake, OfferLease: s.offerLease}, &status, &woken))
	if err != nil {
		return Posted{}, fmt.Errorf("post task in project %s: %w", p.ID, err)
	}
	if err := hold.Err(); err != nil {
		return Posted{}, err
	}
	out := Posted{TaskID: id, Status: status, NeedsApproval: status == authRequired, Action: a.Action}
	if out.NeedsApproval {
		if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: p.ID, TaskID: id,
			AgentID: by.AgentID, Title: a.Title, Detail: a.Action}); err != nil {
			return Posted{}, err
		}
	}
	if target != nil {
		if wakeless[target.Client] {
			if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.AwaitingSession, ProjectID: p.ID, TaskID: id,
				AgentID: target.ID, Title: a.Title,
				DetailIn: texts(s.cat, msgAwaitingSession, map[string]any{"Agent": target.ID, "Client": target.Client})}); err != nil {
				return Posted{}, err
			}
		}
		out.Delegate = target.ID
	}
	if delegatedID != nil {
		out.DelegatedMandateID = *delegatedID
	}
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
