package people

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

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
func (s *Service) UpdateAgent(ctx context.Context, by, id string, u AgentUpdate) (*AgentChange, error) {
	return s.changeAgent(ctx, by, id, u, "admin.agent.update")
}

// ChangeRole moves an agent to another role of its client: UpdateAgent with
// only a role, logged as admin.agent.role.
func (s *Service) ChangeRole(ctx context.Context, by, id, role string) (*AgentChange, error) {
	return s.changeAgent(ctx, by, id, AgentUpdate{RoleID: &role}, "admin.agent.role")
}

func (s *Service) changeAgent(ctx context.Context, by, id string, u AgentUpdate, action string) (*AgentChange, error) {
	var out *AgentChange
	payload := map[string]any{"agent_id": id, "role_id": u.RoleID, "owner": u.Owner, "projects": u.Projects}
	err := s.ident.Act(ctx, by, identity.Approver, action, payload, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		a, err := s.ident.GetAgent(ctx, tx, id, p.OrgID)
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
			if err := s.ident.RequireHumanInOrg(ctx, tx, *u.Owner, p.OrgID); err != nil {
				return err
			}
			if err := setAgentOwner(ctx, tx, id, *u.Owner); err != nil {
				return err
			}
		}
		if u.RoleID != nil || u.Projects != nil {
			if err := s.reissue(ctx, tx, p, e, a, u, out); err != nil {
				return err
			}
		}
		out.Agent, err = s.ident.GetAgent(ctx, tx, id, p.OrgID)
		return err
	})
	return out, err
}

// reissue gives a the role and projects u names (else its own) and a new
// root from the role over all of them, revoking every root it held before.
func (s *Service) reissue(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry, a *identity.Agent, u AgentUpdate, out *AgentChange) error {
	role := u.RoleID
	if role == nil {
		role = a.RoleID
	}
	if role == nil {
		return errs.E(errs.InvalidRequest, "agent %s has no role; give it one with role_id", a.ID)
	}
	r, err := liveRole(ctx, tx, p.OrgID, *role)
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
	live, err := s.mandates.LiveRoots(ctx, tx, a.ID, s.ident.Now())
	if err != nil {
		return err
	}
	if err := setAgentProjects(ctx, tx, a.ID, p.OrgID, projects); err != nil {
		return err
	}
	if err := setAgentRole(ctx, tx, a.ID, r.ID); err != nil {
		return err
	}
	md, err := s.issueFromRole(ctx, tx, p, a.ID, r, projects)
	if err != nil {
		return err
	}
	for _, old := range live {
		if _, err := s.mandates.RevokeSubtree(ctx, tx, old); err != nil {
			return err
		}
		out.RevokedMandates = append(out.RevokedMandates, old.String())
	}
	out.MandateID, out.ExpiresAt = &md.ID, &md.ExpiresAt
	e.MandateChain = []uuid.UUID{md.ID}
	return nil
}
