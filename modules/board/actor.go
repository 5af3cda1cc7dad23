package board

import (
	"fmt"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Actor is who acts on the board through a service method: an agent (an
// MCP tool, a hook) or a person (an Admin API operation, pact-admin).
// Exactly one of AgentID and PersonID is set; OrgID is their organization,
// which the task acted on must belong to.
type Actor struct {
	AgentID  string
	PersonID string
	OrgID    string
	// Client is an agent's client class (docs/specs/behavior.md §6.0); ""
	// for a person.
	Client string
	// Caller is the agent as the tool pipeline's gate read it, in the
	// call's transaction: its projects and their flags. nil for a person.
	Caller *identity.Caller
	// Chain is the mandate chain an agent acts under, which its adapter
	// verified. nil for a person.
	Chain mandate.Chain
	// Found, when set, is told the project and the task ("" for none) a
	// call reaches as soon as the service finds them, so that the call's
	// log entry, a refusal's too, lands on that project's chain.
	Found func(projectID, taskID string)
}

// agentActor is the agent a tool call's gate established, acting under
// chain.
func agentActor(who *identity.Caller, chain mandate.Chain) Actor {
	return Actor{AgentID: who.ID, OrgID: who.OrgID, Client: who.Client, Caller: who, Chain: chain}
}

// personActor is person p.
func personActor(p *identity.Person) Actor { return Actor{PersonID: p.ID, OrgID: p.OrgID} }

// IsAgent reports whether the actor is an agent.
func (a Actor) IsAgent() bool { return a.AgentID != "" }

// ID is the agent's or the person's id.
func (a Actor) ID() string {
	if a.IsAgent() {
		return a.AgentID
	}
	return a.PersonID
}

// found tells a.Found what a call reached.
func (a Actor) found(projectID, taskID string) {
	if a.Found != nil {
		a.Found(projectID, taskID)
	}
}

// wrapf says where an internal error came from as it leaves a service
// method ("claim <task>: …"); a refusal goes out as it is, so the caller
// sees its code and message unchanged.
func wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	if _, ok := errs.As(err); ok {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
