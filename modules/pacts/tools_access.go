package pacts

import (
	"context"

	"github.com/pactboard/pact/core/kernel"
)

// agentAccess is the service's AgentAccess for the tool call c.
func (m *Module) agentAccess(ctx context.Context, c *kernel.Call, mandateID string) (Actor, Access, error) {
	return m.svc.AgentAccess(ctx, c.Tx, c.Caller, mandateID, c.Entry)
}
