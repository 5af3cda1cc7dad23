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
	var roles []roleView
	if err := m.db.Fetch(ctx, tx, &roles, `SELECT r.id, r.name, r.description, r.instructions
		FROM agents a JOIN agent_roles r ON r.org_id = a.org_id AND r.id = a.role_id
		WHERE a.id = $1 AND a.org_id = $2`, c.AgentID, c.OrgID); err != nil {
		return nil, fmt.Errorf("role of agent %s: %w", c.AgentID, err)
	}
	if len(roles) == 0 {
		return nil, nil
	}
	return &roles[0], nil
}
