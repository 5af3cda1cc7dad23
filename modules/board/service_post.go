package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// Post puts a task on project p's board for by, an agent acting under
// chain, which the adapter has verified covers task.post on p: it checks
// the task, delegates it with a narrower mandate cut from chain when a
// names an agent, spends one "tasks" and a's cost, and holds it for a
// person's approval when an approval rule of the organization covers its
// action (docs/specs/behavior.md §5.8).
func (s *Service) Post(ctx context.Context, tx *db.Tx, by Actor, chain mandate.Chain, p *project, a postIn) (postOut, error) {
	// Redacted before the length check, so the stored title is within it.
	a.Title = strings.TrimSpace(redact.Text(a.Title))
	a.Body = redact.Text(a.Body)
	if a.Title == "" || len([]rune(a.Title)) > 300 {
		return postOut{}, errs.E(errs.InvalidRequest, "a task needs a title of 1-300 characters")
	}
	if err := checkTaskBody(a.Body); err != nil {
		return postOut{}, err
	}
	if err := mandate.ValidScope(a.Action); err != nil || strings.Contains(a.Action, "@") {
		return postOut{}, errs.E(errs.InvalidRequest, "action %q must be a project-relative action such as task.work", a.Action)
	}
	cost, err := mandate.CheckAmounts(a.Cost, "cost")
	if err != nil {
		return postOut{}, err
	}
	if a.ParentTaskID != nil && *a.ParentTaskID != "" {
		parent, err := s.st.getTask(ctx, tx, *a.ParentTaskID, false)
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
		if target, err = s.delegateTarget(ctx, tx, by.AgentID, *a.DelegateTo, p.ID); err != nil {
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
		if delegated, err = s.mandates.IssueChild(ctx, tx, chain, mandate.ChildInput{Holder: target.ID, Scope: scope, Limits: limits}); err != nil {
			return postOut{}, err
		}
	}
	spend := map[string]float64{"tasks": 1}
	for k, v := range cost {
		spend[k] += v
	}
	if _, err := s.mandates.Consume(ctx, tx, chain, spend, true); err != nil {
		return postOut{}, err
	}
	id := uuid.NewString()
	var delegatedID *string
	if delegated != nil {
		s := delegated.ID.String()
		delegatedID = &s
	}
	// The task, held for approval when an approval rule of the organization
	// covers its action (docs/specs/behavior.md §5.8), and, unless held, its
	// wakeup: its delegate's (events.Payload), or an offer to one holder of
	// pact_events in the project (task_offer, offers.go); one statement.
	ev := events.Event{Kind: events.KindTask, OrgID: p.OrgID, ProjectID: p.ID, TaskID: id}
	if a.DelegateTo != nil {
		ev.AgentID = *a.DelegateTo
	}
	wake, err := events.Payload(ev)
	if err != nil {
		return postOut{}, err
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
		return postOut{}, fmt.Errorf("post task in project %s: %w", p.ID, err)
	}
	if err := hold.Err(); err != nil {
		return postOut{}, err
	}
	needsApproval := status == authRequired
	notes := []string{}
	if needsApproval {
		if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.ApprovalNeeded, ProjectID: p.ID, TaskID: id,
			AgentID: by.AgentID, Title: a.Title, Detail: a.Action}); err != nil {
			return postOut{}, err
		}
		notes = append(notes, `Action "`+a.Action+`" needs a human approval in the Admin UI before anyone can claim it.`)
	}
	if target != nil {
		if wakeless[target.Client] {
			if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.AwaitingSession, ProjectID: p.ID, TaskID: id,
				AgentID: target.ID, Title: a.Title,
				DetailIn: texts(s.cat, msgAwaitingSession, map[string]any{"Agent": target.ID, "Client": target.Client})}); err != nil {
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
