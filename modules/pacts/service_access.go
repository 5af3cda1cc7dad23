package pacts

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
)

// Scopes an agent needs on a project to reach its pacts.
const (
	ReadAction  = "pact.read"
	WriteAction = "pact.write"
)

// AgentAccess verifies the mandate agent who acts under and works out
// where it may reach pacts: its projects that the mandate's leaf covers
// with pact.read and pact.write. e, the call's log entry, records the
// chain, and lands on the project of the pact the call reaches.
func (s *Service) AgentAccess(ctx context.Context, tx bun.IDB, who *identity.Caller, mandateID string, e *ledger.Entry) (Actor, Access, error) {
	chain, err := s.mandates.Verify(ctx, tx, mandateID, who.ID)
	if err != nil {
		return Actor{}, Access{}, err
	}
	e.MandateChain = chain.IDs()
	leaf := chain.Leaf()
	acc := Access{Read: []string{}, Write: []string{}, Found: func(p string) { e.ProjectID = p }}
	for _, p := range who.Projects {
		if mandate.AnyCovers(leaf.Scope, mandate.BoardScope(ReadAction, p)) {
			acc.Read = append(acc.Read, p)
		}
		if mandate.AnyCovers(leaf.Scope, mandate.BoardScope(WriteAction, p)) {
			acc.Write = append(acc.Write, p)
		}
	}
	return Actor{Agent: who.ID, Org: who.OrgID}, acc, nil
}
