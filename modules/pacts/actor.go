package pacts

// Actor is who acts on a pact: an agent through its MCP tools, or a person
// through the Admin API. It is taken from the credential that connects,
// never from the request.
type Actor struct {
	Agent string // the agent's id, or ""
	Human string // the person's id, or ""
	Org   string // the actor's organization
}

// String is the actor as the log and the pact's rows name it:
// "agent:<id>" or "human:<id>".
func (a Actor) String() string {
	if a.Agent != "" {
		return "agent:" + a.Agent
	}
	return "human:" + a.Human
}
