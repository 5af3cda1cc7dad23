package board

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
)

// The MCP tools (tools_*.go) are adapters over the service: each reads its
// arguments, establishes the agent acting (agent), calls the service and
// shapes its answer; the words an agent reads are theirs.

// enum is the schema of a string that must be one of values; tools give it
// to their enum types (kernel.ToolSpec.Types).
func enum(values ...string) *jsonschema.Schema {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return &jsonschema.Schema{Type: "string", Enum: vs}
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

// agent is the actor of a tool call: the caller its gate read, under the
// chain of mandateID, verified (and recorded on the call's entry); what
// the service finds the call reaches goes on the entry too.
func (m *Module) agent(ctx context.Context, c *kernel.Call, mandateID string) (Actor, error) {
	chain, err := m.verify(ctx, c, mandateID)
	if err != nil {
		return Actor{}, err
	}
	a := agentActor(c.Caller, chain)
	a.Found = func(projectID, taskID string) {
		c.Entry.ProjectID = projectID
		if taskID != "" {
			c.Entry.TaskID = taskID
		}
	}
	return a, nil
}
