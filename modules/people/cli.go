package people

import (
	"context"
	"encoding/json"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// CLI is what pact-admin calls (docs/pact-admin.md): each command runs the
// service method its Admin operation runs, as the person its --by names,
// whom the service checks as it checks the Admin API's signed-in person.
// The platform operator's commands (ListOrgs, RenameOrg,
// SetOrgHaltedByOperator, SetPlatformHalted) have no Admin operation: no
// person acts in them. The CLI translates; it decides nothing.
type CLI struct{ svc *Service }

// CLI is the module's pact-admin adapter, valid once the module is
// registered.
func (m *Module) CLI() CLI { return CLI{svc: m.svc} }

// reader is person by, who must be an enabled person of any role, as the
// Admin API's gate admits to its reads.
func (c CLI) reader(ctx context.Context, by string) (*identity.Person, error) {
	if by == "" {
		return nil, errs.E(errs.Forbidden, "name the person acting (--by <human-id>)")
	}
	return identity.RequirePerson(ctx, c.svc.db, by, identity.Viewer)
}

// Agents is agent-list: the agents of person by's organization, as GET
// /admin/api/agents lists them.
func (c CLI) Agents(ctx context.Context, by string) ([]Agent, error) {
	p, err := c.reader(ctx, by)
	if err != nil {
		return nil, err
	}
	return c.svc.Agents(ctx, p)
}

// Humans is human-list: the people of person by's organization, as GET
// /admin/api/humans lists them.
func (c CLI) Humans(ctx context.Context, by string) ([]Human, error) {
	p, err := c.reader(ctx, by)
	if err != nil {
		return nil, err
	}
	return c.svc.Humans(ctx, p)
}

// Projects is project-list: the projects of person by's organization, as
// GET /admin/api/projects lists them.
func (c CLI) Projects(ctx context.Context, by string) ([]Project, error) {
	p, err := c.reader(ctx, by)
	if err != nil {
		return nil, err
	}
	return c.svc.Projects(ctx, p)
}

// Roles is role-list: the roles of person by's organization (archived ones
// too with archived), as GET /admin/api/roles lists them.
func (c CLI) Roles(ctx context.Context, by string, archived bool) ([]AgentRole, error) {
	p, err := c.reader(ctx, by)
	if err != nil {
		return nil, err
	}
	return c.svc.Roles(ctx, p, archived)
}

// AddHuman is human-add (people-create-human); without by, the board's
// first person.
func (c CLI) AddHuman(ctx context.Context, by string, in identity.HumanInput) (*identity.Person, error) {
	return c.svc.AddHuman(ctx, by, in)
}

// AddProject is project-add (people-create-project).
func (c CLI) AddProject(ctx context.Context, by, id, name string, production bool) (*identity.Project, error) {
	return c.svc.AddProject(ctx, by, id, name, production)
}

// SetProjectFlags is project-set (people-update-project).
func (c CLI) SetProjectFlags(ctx context.Context, by, id string, f ProjectFlags) (*identity.Project, error) {
	return c.svc.SetProjectFlags(ctx, by, id, f)
}

// RegisterAgent is agent-register (people-create-agent).
func (c CLI) RegisterAgent(ctx context.Context, by string, in AgentInput) (*Registered, error) {
	return c.svc.RegisterAgent(ctx, by, in)
}

// SetAgentStatus is agent-status (people-set-agent-status).
func (c CLI) SetAgentStatus(ctx context.Context, by, id, status string) (*identity.Agent, error) {
	return c.svc.SetAgentStatus(ctx, by, id, status)
}

// SetPreferences is agent-prefs (people-set-agent-preferences): raw is the
// JSON object as typed.
func (c CLI) SetPreferences(ctx context.Context, by, id string, raw []byte) (json.RawMessage, error) {
	return c.svc.SetPreferences(ctx, by, id, raw)
}

// IssueToken is token-issue (people-issue-agent-token).
func (c CLI) IssueToken(ctx context.Context, by, agent string, days float64) (*IssuedToken, error) {
	return c.svc.IssueToken(ctx, by, agent, days)
}

// RevokeTokens is token-revoke (people-revoke-agent-tokens).
func (c CLI) RevokeTokens(ctx context.Context, by, agent string) (int64, error) {
	return c.svc.RevokeTokens(ctx, by, agent)
}

// Hire is hire (people-hire-agent).
func (c CLI) Hire(ctx context.Context, by string, in HireInput) (*Hired, error) {
	return c.svc.Hire(ctx, by, in)
}

// NewSetupCode is setup-code (people-create-setup-code).
func (c CLI) NewSetupCode(ctx context.Context, by, agent string) (*Connect, error) {
	return c.svc.NewSetupCode(ctx, by, agent)
}

// SaveRole is role-save (people-save-role).
func (c CLI) SaveRole(ctx context.Context, by string, in RoleInput) (*AgentRole, error) {
	return c.svc.SaveRole(ctx, by, in)
}

// ArchiveRole is role-archive (people-archive-role).
func (c CLI) ArchiveRole(ctx context.Context, by, id string) (*AgentRole, error) {
	return c.svc.ArchiveRole(ctx, by, id)
}

// SetOrgHalted is halt and unhalt (people-set-kill-switch).
func (c CLI) SetOrgHalted(ctx context.Context, by string, halted bool) error {
	return c.svc.SetOrgHalted(ctx, by, halted)
}

// ListOrgs is the operator's org-list.
func (c CLI) ListOrgs(ctx context.Context) ([]identity.OrgSummary, error) {
	return c.svc.ListOrgs(ctx)
}

// RenameOrg is the operator's org-rename.
func (c CLI) RenameOrg(ctx context.Context, org, name string) error {
	return c.svc.RenameOrg(ctx, org, name)
}

// SetOrgHaltedByOperator is the operator's org-halt and org-unhalt.
func (c CLI) SetOrgHaltedByOperator(ctx context.Context, org string, halted bool) error {
	return c.svc.SetOrgHaltedByOperator(ctx, org, halted)
}

// SetPlatformHalted is the operator's platform-halt and platform-unhalt.
func (c CLI) SetPlatformHalted(ctx context.Context, halted bool) error {
	return c.svc.SetPlatformHalted(ctx, halted)
}
