package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

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

// verify checks the chain of mandateID for the caller and records it on the
// call's entry.
func (m *Module) verify(ctx context.Context, c *kernel.Call, mandateID string) (mandate.Chain, error) {
	chain, err := m.mandates.Verify(ctx, c.Tx, mandateID, c.AgentID)
	if err != nil {
		return nil, err
	}
	c.Entry.MandateChain = chain.IDs()
	return chain, nil
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

// visibleTask loads a task the caller may see: it must exist in the caller's
// organization (another organization's task answers like a missing one), and
// the caller must be registered in its project. It records the task and its
// project on the call's entry.
func (m *Module) visibleTask(ctx context.Context, c *kernel.Call, who *caller, id string) (*task, *project, error) {
	t, err := m.st.getTask(ctx, c.Tx, id, false)
	if err != nil {
		return nil, nil, err
	}
	var p *project
	if t != nil {
		p = who.Project(t.ProjectID) // read by the gate; another project needs a query
	}
	if t != nil && p == nil {
		if p, err = loadProject(ctx, c.Tx, t.ProjectID); err != nil {
			return nil, nil, err
		}
	}
	if t == nil || p == nil || p.OrgID != who.OrgID {
		return nil, nil, errs.E(errs.NotFound, "task %s does not exist", id)
	}
	c.Entry.ProjectID, c.Entry.TaskID = t.ProjectID, t.ID
	if err := projectFor(who, p.ID); err != nil {
		return nil, nil, err
	}
	return t, p, nil
}

// workOn is how a call that changes a task starts (pact_claim, pact_report):
// verify the chain, find the task the caller may see, and refuse frozen
// projects and Runners on production ones, in that order.
func (m *Module) workOn(ctx context.Context, c *kernel.Call, mandateID, taskID string) (mandate.Chain, *caller, *task, *project, error) {
	chain, err := m.verify(ctx, c, mandateID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	who := c.Caller
	t, p, err := m.visibleTask(ctx, c, who, taskID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := refuseFrozen(p); err != nil {
		return nil, nil, nil, nil, err
	}
	if err := refuseRunnerOnProduction(who, p); err != nil {
		return nil, nil, nil, nil, err
	}
	return chain, who, t, p, nil
}
