package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Who may act on what: the checks every service method of an agent's
// starts with, in the order the refusals are documented (docs/errors.md).

// Client classes (docs/specs/behavior.md §6.0).
var (
	// postOnly clients post and watch tasks but never claim them.
	postOnly = map[string]bool{"chat": true}
	// wakeless clients work only while a person has them open.
	wakeless = map[string]bool{"chat": true, "cowork": true, "design": true}
)

type caller = identity.Caller

type project = identity.Project

func loadCaller(ctx context.Context, tx bun.IDB, id string) (*caller, error) {
	return identity.LoadCaller(ctx, tx, id)
}

func loadProject(ctx context.Context, tx bun.IDB, id string) (*project, error) {
	return identity.LoadProject(ctx, tx, id)
}

// requireScope refuses when the chain's leaf does not cover scope.
func requireScope(chain mandate.Chain, scope string) error {
	leaf := chain.Leaf()
	if !mandate.AnyCovers(leaf.Scope, scope) {
		return errs.Mandate(errs.ScopeExceeded, leaf.ID.String(), "mandate %s does not cover %s", leaf.ID, scope)
	}
	return nil
}

// projectFor refuses a project the caller is not registered in.
func projectFor(c *caller, p string) error {
	if !c.In(p) {
		return errs.E(errs.ProjectMismatch, "agent %s is not registered in project %s", c.ID, p)
	}
	return nil
}

// refuseRunnerOnProduction keeps Runners off production projects.
func refuseRunnerOnProduction(c *caller, p *project) error {
	if c.Client == "runner" && p.Production {
		return errs.E(errs.ProjectMismatch, "project %s is production; a Runner may not touch it — a human opens Claude Code", p.ID)
	}
	return nil
}

func refuseFrozen(p *project) error {
	if p.Frozen {
		return errs.E(errs.ProjectFrozen, "project %s is frozen by a person; nothing changes in it until they unfreeze it", p.ID)
	}
	return nil
}

// taskFor loads task id for by. An agent's must exist in its organization
// (another organization's task answers like a missing one) and be of a
// project it is registered in; a person's, of their organization, is
// locked for the change they decide. by.Found is told the task and its
// project before any refusal about them. The project is nil for a person.
func (s *Service) taskFor(ctx context.Context, tx bun.IDB, by Actor, id string) (*Task, *project, error) {
	if !by.IsAgent() {
		t, err := s.personTask(ctx, tx, by, id)
		return t, nil, err
	}
	who := by.Caller
	t, err := s.st.getTask(ctx, tx, id, false)
	if err != nil {
		return nil, nil, err
	}
	var p *project
	if t != nil {
		p = who.Project(t.ProjectID) // read by the gate; another project needs a query
	}
	if t != nil && p == nil {
		if p, err = loadProject(ctx, tx, t.ProjectID); err != nil {
			return nil, nil, err
		}
	}
	if t == nil || p == nil || p.OrgID != who.OrgID {
		return nil, nil, errs.E(errs.NotFound, "task %s does not exist", id)
	}
	by.found(t.ProjectID, t.ID)
	if err := projectFor(who, p.ID); err != nil {
		return nil, nil, err
	}
	return t, p, nil
}

// personTask loads task id of by's organization (a person's) for update.
func (s *Service) personTask(ctx context.Context, tx bun.IDB, by Actor, id string) (*Task, error) {
	t, err := s.st.getTask(ctx, tx, id, true)
	if err != nil {
		return nil, err
	}
	var org string
	if t != nil {
		if org, err = s.st.projectOrg(ctx, tx, t.ProjectID); err != nil {
			return nil, wrapf(err, "board.personTask")
		}
	}
	if t == nil || org != by.OrgID {
		return nil, errs.E(errs.NotFound, "task %s does not exist", id)
	}
	by.found(t.ProjectID, t.ID)
	return t, nil
}

// workOn is how an agent's change to a task starts (a claim, a report, a
// run's credential): find the task it may see, and refuse frozen projects
// and Runners on production ones, in that order.
func (s *Service) workOn(ctx context.Context, tx bun.IDB, by Actor, id string) (*Task, *project, error) {
	t, p, err := s.taskFor(ctx, tx, by, id)
	if err != nil {
		return nil, nil, err
	}
	if err := refuseFrozen(p); err != nil {
		return nil, nil, err
	}
	if err := refuseRunnerOnProduction(by.Caller, p); err != nil {
		return nil, nil, err
	}
	return t, p, nil
}
