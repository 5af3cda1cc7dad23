package people

import (
	"context"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// viewer is person by, who must be an enabled person of any role: the
// least role of the Admin API's reads.
func (m *Module) viewer(ctx context.Context, by string) (*identity.Person, error) {
	if by == "" {
		return nil, errs.E(errs.Forbidden, "name the person acting (--by <human-id>)")
	}
	return identity.RequirePerson(ctx, m.db, by, identity.Viewer)
}

// AgentsFor lists the agents of person by's organization, as GET
// /admin/api/agents does: pact-admin agent-list.
func (m *Module) AgentsFor(ctx context.Context, by string) ([]Agent, error) {
	p, err := m.viewer(ctx, by)
	if err != nil {
		return nil, err
	}
	return m.agentRows(ctx, m.db, p.OrgID, "")
}

// HumansFor lists the people of person by's organization, as GET
// /admin/api/humans does: pact-admin human-list.
func (m *Module) HumansFor(ctx context.Context, by string) ([]Human, error) {
	p, err := m.viewer(ctx, by)
	if err != nil {
		return nil, err
	}
	return m.humanRows(ctx, m.db, p.OrgID)
}

// ProjectsFor lists the projects of person by's organization, as GET
// /admin/api/projects does: pact-admin project-list.
func (m *Module) ProjectsFor(ctx context.Context, by string) ([]Project, error) {
	p, err := m.viewer(ctx, by)
	if err != nil {
		return nil, err
	}
	return m.projectRows(ctx, m.db, p.OrgID, "")
}

// RolesFor lists the roles of person by's organization (archived ones too
// with archived), as GET /admin/api/roles does for a viewer: pact-admin
// role-list.
func (m *Module) RolesFor(ctx context.Context, by string, archived bool) ([]AgentRole, error) {
	p, err := m.viewer(ctx, by)
	if err != nil {
		return nil, err
	}
	return m.ListRoles(ctx, m.db, p.OrgID, archived)
}
