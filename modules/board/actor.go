package board

import "github.com/pactboard/pact/core/identity"

// Actor is who acts on the board through a service method: an agent (an
// MCP tool) or a person (an Admin API operation). Exactly one of AgentID
// and PersonID is set; OrgID is their organization, which the task acted
// on belongs to (both adapters have checked it).
type Actor struct {
	AgentID  string
	PersonID string
	OrgID    string
}

// agentActor is agent id of organization org.
func agentActor(id, org string) Actor { return Actor{AgentID: id, OrgID: org} }

// personActor is person p.
func personActor(p *identity.Person) Actor { return Actor{PersonID: p.ID, OrgID: p.OrgID} }

// IsAgent reports whether the actor is an agent.
func (a Actor) IsAgent() bool { return a.AgentID != "" }
