package people

import (
	"github.com/pactboard/pact/core/db"
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
func (m *Module) whoamiRole(c kernel.WhoamiCaller) (db.Step, func() (any, error)) {
	var role *roleView
	return agentRole(c.AgentID, c.OrgID, &role), func() (any, error) {
		if role == nil {
			return nil, nil // a typed nil would answer {} rather than null
		}
		return role, nil
	}
}
