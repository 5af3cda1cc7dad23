package pacts

import (
	"context"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Scopes an agent needs on a project to reach its pacts.
const (
	ReadAction  = "pact.read"
	WriteAction = "pact.write"
)

// agentAccess verifies the caller's mandate and works out where it may
// reach pacts: its projects that the mandate's leaf covers with pact.read
// and pact.write. The call's entry records the chain, and lands on the
// project of the pact the call reaches.
func (m *Module) agentAccess(ctx context.Context, c *kernel.Call, mandateID string) (Actor, Access, error) {
	chain, err := m.mandates.Verify(ctx, c.Tx, mandateID, c.AgentID)
	if err != nil {
		return Actor{}, Access{}, err
	}
	c.Entry.MandateChain = chain.IDs()
	leaf := chain.Leaf()
	acc := Access{Read: []string{}, Write: []string{}, Found: func(p string) { c.Entry.ProjectID = p }}
	for _, p := range c.Caller.Projects {
		if mandate.AnyCovers(leaf.Scope, mandate.BoardScope(ReadAction, p)) {
			acc.Read = append(acc.Read, p)
		}
		if mandate.AnyCovers(leaf.Scope, mandate.BoardScope(WriteAction, p)) {
			acc.Write = append(acc.Write, p)
		}
	}
	return Actor{Agent: c.AgentID, Org: c.OrgID}, acc, nil
}

// requireRuler refuses unless the agent's person is an owner or approver:
// starting a pact and pausing a job are theirs to allow.
func (m *Module) requireRuler(ctx context.Context, c *kernel.Call, what string) (string, error) {
	owner, _, err := identity.AgentOwner(ctx, c.Tx, c.AgentID)
	if err != nil {
		return "", err
	}
	p, err := m.ident.GetPerson(ctx, c.Tx, owner)
	if err != nil {
		return "", err
	}
	if !p.Role.AtLeast(identity.Approver) || p.DisabledAt != nil {
		return "", errs.E(errs.Forbidden, "%s needs your person (%s) to be an owner or approver of the organization; they are a %s",
			what, owner, p.Role)
	}
	return owner, nil
}
