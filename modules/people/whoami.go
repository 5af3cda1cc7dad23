package people

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
)

// roleView is the role an agent was hired from, as pact_whoami answers it.
type roleView struct {
	ID           string `bun:"id" json:"id"`
	Name         string `bun:"name" json:"name"`
	Description  string `bun:"description" json:"description"`
	Instructions string `bun:"instructions" json:"instructions"`
}

// addWhoami registers the "role" section of pact_whoami: roles are this
// module's table (docs/architecture.md, "Table ownership"); the agent's
// role id comes from core/identity.
func (m *Module) addWhoami(h *kernel.Host) error {
	return h.WhoamiSection("role", m.whoamiRole)
}

// whoamiRole is the caller's role, or nil when it was not hired from one.
// Roles are keyed by (organization, id): role ids repeat in every
// organization.
func (m *Module) whoamiRole(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	a, err := m.identity.GetAgent(ctx, tx, c.AgentID, c.OrgID)
	if err != nil {
		return nil, fmt.Errorf("role of agent %s: %w", c.AgentID, err)
	}
	if a.RoleID == nil {
		return nil, nil
	}
	var roles []roleView
	if err := tx.NewRaw(`SELECT id, name, description, instructions FROM agent_roles WHERE org_id = ? AND id = ?`,
		a.OrgID, *a.RoleID).Scan(ctx, &roles); err != nil {
		return nil, fmt.Errorf("role of agent %s: %w", c.AgentID, err)
	}
	if len(roles) == 0 {
		return nil, nil
	}
	return &roles[0], nil
}
