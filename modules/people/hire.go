package people

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// oauthClients sign in through a Claude app with their owner's account;
// the rest hold a token, handed over through a setup code.
var oauthClients = map[string]bool{"chat": true, "cowork": true, "design": true}

// HireInput describes an agent to hire from a role. Zero values take the
// role's: id <role>-<project>, its limits, delegations and mandate term.
type HireInput struct {
	Role        string             `json:"role"`
	Project     string             `json:"project"`
	ID          string             `json:"id,omitempty"`
	Limits      map[string]float64 `json:"limits,omitempty"`
	Delegations *int               `json:"delegations,omitempty"`
	Days        float64            `json:"days,omitempty"`
	Owner       string             `json:"owner,omitempty"`
	Replaces    string             `json:"replaces,omitempty"`
}

// roleScope is role's actions on each of projects.
func roleScope(r *AgentRole, projects []string) []string {
	var scope []string
	for _, p := range projects {
		for _, a := range r.Actions {
			scope = append(scope, mandate.BoardScope(a, p))
		}
	}
	return scope
}

// Hire registers an agent from a role of the acting approver's organization
// with the role's scope on project, its budget and terms unless overridden,
// and answers how it connects: a setup code for token clients, the
// connector for the others, never a token. replaces bans that agent, points
// it at the new one and revokes its tokens and every mandate it holds. Refusals: forbidden; not_found
// (role, owner, project or replaced agent); invalid_request (archived role,
// malformed input); id_taken; project_mismatch.
func (m *Module) Hire(ctx context.Context, by string, in HireInput) (*Hired, error) {
	var out *Hired
	err := m.identity.Act(ctx, by, identity.Approver, "admin.agent.hire", in, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		if in.Project == "" {
			return errs.E(errs.ProjectRequired, "hiring needs a project")
		}
		if !roleID.MatchString(in.Role) {
			return errs.E(errs.NotFound, "role %s does not exist", in.Role)
		}
		r, err := m.liveRole(ctx, tx, p.OrgID, in.Role)
		if err != nil {
			return err
		}
		id := in.ID
		if id == "" {
			id = r.ID + "-" + in.Project
		}
		limits := in.Limits
		if limits == nil {
			limits = r.Limits
		}
		del := r.Delegations
		if in.Delegations != nil {
			del = *in.Delegations
		}
		days := in.Days
		if days == 0 {
			days = r.MandateDays
		}
		var old *identity.Agent
		if in.Replaces != "" {
			if old, err = m.identity.GetAgent(ctx, tx, in.Replaces, p.OrgID); err != nil {
				return err
			}
		}
		reg, err := m.identity.RegisterHired(ctx, tx, p, e, identity.AgentInput{ID: id, Client: r.Client, Projects: []string{in.Project},
			Scope: roleScope(r, []string{in.Project}), Limits: limits, Delegations: &del, MandateDays: days,
			Owner: in.Owner}, r.ID)
		if err != nil {
			return err
		}
		if old != nil {
			if err := m.identity.ReplaceAgent(ctx, tx, old.ID, id); err != nil {
				return err
			}
			// A replaced agent is banned: its authority ends with it
			// (docs/security.md, finding 3).
			if err := m.revokeHeld(ctx, tx, e, old.ID); err != nil {
				return err
			}
		}
		c, err := m.connect(ctx, tx, p.ID, id, r.Client)
		if err != nil {
			return err
		}
		out = &Hired{AgentID: id, RootMandateID: reg.RootMandateID, ConnectorPath: reg.ConnectorPath, Role: r.ID,
			Connect: *c}
		return nil
	})
	return out, err
}

// Renewed is a hired agent's fresh root mandate.
type Renewed struct {
	AgentID   string    `json:"agent_id"`
	MandateID uuid.UUID `json:"mandate_id"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Renew issues a hired agent a fresh root mandate from its role for its
// first project; the old root keeps running until it ends. Refusals:
// forbidden, not_found, invalid_request (not hired from a role, or banned).
func (m *Module) Renew(ctx context.Context, by, id string) (*Renewed, error) {
	var out *Renewed
	err := m.identity.Act(ctx, by, identity.Approver, "admin.agent.renew", map[string]any{"agent_id": id},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			a, err := m.identity.GetAgent(ctx, tx, id, p.OrgID)
			if err != nil {
				return err
			}
			e.AgentID = id
			if a.RoleID == nil {
				return errs.E(errs.InvalidRequest, "agent %s was not hired from a role; issue it a mandate instead", id)
			}
			if a.Status == "banned" || len(a.Projects) == 0 {
				return errs.E(errs.InvalidRequest, "agent %s is banned or has no project", id)
			}
			r, err := m.GetRole(ctx, tx, p.OrgID, *a.RoleID)
			if err != nil {
				return err
			}
			md, err := m.issueFromRole(ctx, tx, p, a.ID, r, a.Projects[:1])
			if err != nil {
				return err
			}
			e.MandateChain, e.ProjectID = []uuid.UUID{md.ID}, a.Projects[0]
			out = &Renewed{AgentID: id, MandateID: md.ID, ExpiresAt: md.ExpiresAt}
			return nil
		})
	return out, err
}

func (m *Module) issueFromRole(ctx context.Context, tx bun.Tx, p *identity.Person, agent string, r *AgentRole, projects []string) (*mandate.Mandate, error) {
	ends, err := m.identity.Term("the role's mandate term", r.MandateDays)
	if err != nil {
		return nil, err
	}
	md, err := m.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: agent, Scope: roleScope(r, projects),
		Limits: r.Limits, Delegations: r.Delegations, ExpiresAt: ends})
	if err != nil {
		return nil, err
	}
	return md, m.identity.SetRootMandate(ctx, tx, agent, md.ID)
}

// AgentUpdate names what to change of an agent; nil leaves it.
type AgentUpdate struct {
	RoleID   *string
	Owner    *string
	Projects []string
}

// AgentChange is an agent after an update, with what a reissue did.
type AgentChange struct {
	Agent           *identity.Agent `json:"agent"`
	MandateID       *uuid.UUID      `json:"mandate_id"`
	ExpiresAt       *time.Time      `json:"expires_at"`
	RevokedMandates []string        `json:"revoked_mandates"`
}

// UpdateAgent changes an agent's owner, role or projects. A new role or
// project set reissues its root mandate from the role over all its projects
// and revokes every root it held before; a new owner changes nothing else.
// Its id and client never change. Refusals: forbidden; not_found (agent,
// owner, role, project); invalid_request (banned, nothing to change, role
// archived or of another client, project count); project_mismatch (a runner
// on a production project).
func (m *Module) UpdateAgent(ctx context.Context, by, id string, u AgentUpdate) (*AgentChange, error) {
	return m.changeAgent(ctx, by, id, u, "admin.agent.update")
}

// ChangeRole moves an agent to another role of its client: UpdateAgent with
// only a role, logged as admin.agent.role.
func (m *Module) ChangeRole(ctx context.Context, by, id, role string) (*AgentChange, error) {
	return m.changeAgent(ctx, by, id, AgentUpdate{RoleID: &role}, "admin.agent.role")
}

func (m *Module) changeAgent(ctx context.Context, by, id string, u AgentUpdate, action string) (*AgentChange, error) {
	var out *AgentChange
	payload := map[string]any{"agent_id": id, "role_id": u.RoleID, "owner": u.Owner, "projects": u.Projects}
	err := m.identity.Act(ctx, by, identity.Approver, action, payload, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		a, err := m.identity.GetAgent(ctx, tx, id, p.OrgID)
		if err != nil {
			return err
		}
		e.AgentID = id
		if a.Status == "banned" {
			return errs.E(errs.InvalidRequest, "agent %s is banned; hire a new one instead", id)
		}
		if u.RoleID == nil && u.Owner == nil && u.Projects == nil {
			return errs.E(errs.InvalidRequest, "name something to change: role_id, owner or projects")
		}
		out = &AgentChange{RevokedMandates: []string{}}
		if u.Owner != nil {
			if err := m.identity.RequireHumanInOrg(ctx, tx, *u.Owner, p.OrgID); err != nil {
				return err
			}
			if err := m.identity.SetAgentOwner(ctx, tx, id, *u.Owner); err != nil {
				return err
			}
		}
		if u.RoleID != nil || u.Projects != nil {
			if err := m.reissue(ctx, tx, p, e, a, u, out); err != nil {
				return err
			}
		}
		out.Agent, err = m.identity.GetAgent(ctx, tx, id, p.OrgID)
		return err
	})
	return out, err
}

// reissue gives a the role and projects u names (else its own) and a new
// root from the role over all of them, revoking every root it held before.
func (m *Module) reissue(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry, a *identity.Agent, u AgentUpdate, out *AgentChange) error {
	role := u.RoleID
	if role == nil {
		role = a.RoleID
	}
	if role == nil {
		return errs.E(errs.InvalidRequest, "agent %s has no role; give it one with role_id", a.ID)
	}
	r, err := m.liveRole(ctx, tx, p.OrgID, *role)
	if err != nil {
		return err
	}
	if r.Client != a.Client {
		return errs.E(errs.InvalidRequest, "role %s is for %s agents; %s is a %s agent", r.ID, r.Client, a.ID, a.Client)
	}
	projects := u.Projects
	if projects == nil {
		projects = a.Projects
	}
	if len(projects) == 0 {
		return errs.E(errs.ProjectRequired, "an agent needs at least one project")
	}
	if identity.SingleProject(a.Client) && len(projects) != 1 {
		return errs.E(errs.InvalidRequest, "%s agents work in exactly one project; got %d", a.Client, len(projects))
	}
	for _, pr := range projects {
		proj, err := identity.ProjectInOrg(ctx, tx, pr, p.OrgID)
		if err != nil {
			return err
		}
		if a.Client == "runner" && proj.Production {
			return errs.E(errs.ProjectMismatch, "runners never work on production projects")
		}
	}
	live, err := m.mandates.LiveRoots(ctx, tx, a.ID, m.identity.Now())
	if err != nil {
		return err
	}
	if err := m.identity.SetAgentProjects(ctx, tx, a.ID, p.OrgID, projects); err != nil {
		return err
	}
	if err := m.identity.SetAgentRole(ctx, tx, a.ID, r.ID); err != nil {
		return err
	}
	md, err := m.issueFromRole(ctx, tx, p, a.ID, r, projects)
	if err != nil {
		return err
	}
	for _, old := range live {
		if _, err := m.mandates.RevokeSubtree(ctx, tx, old); err != nil {
			return err
		}
		out.RevokedMandates = append(out.RevokedMandates, old.String())
	}
	out.MandateID, out.ExpiresAt = &md.ID, &md.ExpiresAt
	e.MandateChain = []uuid.UUID{md.ID}
	return nil
}
