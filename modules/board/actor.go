package board

import (
	"fmt"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// Actor is who acts on the board through a service method: an agent (an
// MCP tool) or a person (an Admin API operation). Exactly one of AgentID
// and PersonID is set; OrgID is their organization, which the task acted
// on belongs to (both adapters have checked it).
type Actor struct {
	AgentID  string
	PersonID string
	OrgID    string
	// Client is an agent's client class (docs/specs/behavior.md §6.0); ""
	// for a person.
	Client string
}

// agentActor is the agent the tool pipeline established, as loaded by the
// tool.
func agentActor(who *caller) Actor {
	return Actor{AgentID: who.ID, OrgID: who.OrgID, Client: who.Client}
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
