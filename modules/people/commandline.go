package people

import (
	"context"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// RolesFor lists the roles of person by's organization (archived ones too
// with archived), as GET /admin/api/roles does for a viewer: pact-admin
// role-list.
func (m *Module) RolesFor(ctx context.Context, by string, archived bool) ([]AgentRole, error) {
	if by == "" {
		return nil, errs.E(errs.Forbidden, "name the person acting (--by <human-id>)")
	}
	p, err := identity.RequirePerson(ctx, m.db, by, identity.Viewer)
	if err != nil {
		return nil, err
	}
	return m.ListRoles(ctx, m.db, p.OrgID, archived)
}
