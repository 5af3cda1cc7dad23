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

// remoteClient is a remote A2A agent's client: the board drives it, and a
// person names its card (board-set-a2a-remote) instead of connecting it.
const remoteClient = "a2a-remote"

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

// Connect says how a hired agent connects; it never holds a token.
type Connect struct {
	Kind      string     `json:"kind" enum:"oauth,setup_code,remote_card" doc:"oauth: add the connector URL in a Claude app; setup_code: run the command on the agent's machine; remote_card: nothing connects, name the remote A2A agent's card at url (PUT, board-set-a2a-remote)"`
	URL       string     `json:"url,omitempty" doc:"The connector URL to add in the Claude app (oauth), or the Admin API operation that names the remote agent's card (remote_card)"`
	Code      string     `json:"code,omitempty" doc:"One-time setup code, valid 15 minutes (setup_code)"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	Command   string     `json:"command,omitempty" doc:"What to run on the agent's machine"`
}

// Hired is a hired agent and how it connects.
type Hired struct {
	AgentID       string    `json:"agent_id"`
	RootMandateID uuid.UUID `json:"root_mandate_id"`
	ConnectorPath string    `json:"connector_path"`
	Role          string    `json:"role"`
	Connect       Connect   `json:"connect"`
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
func (s *Service) Hire(ctx context.Context, by string, in HireInput) (*Hired, error) {
	var out *Hired
	err := s.ident.Act(ctx, by, identity.Approver, "admin.agent.hire", in, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		if in.Project == "" {
			return errs.E(errs.ProjectRequired, "hiring needs a project")
		}
		if !roleID.MatchString(in.Role) {
			return errs.E(errs.NotFound, "role %s does not exist", in.Role)
		}
		r, err := liveRole(ctx, tx, p.OrgID, in.Role)
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
			if old, err = s.ident.GetAgent(ctx, tx, in.Replaces, p.OrgID); err != nil {
				return err
			}
		}
		reg, err := s.register(ctx, tx, p, e, AgentInput{ID: id, Client: r.Client, Projects: []string{in.Project},
			Scope: roleScope(r, []string{in.Project}), Limits: limits, Delegations: &del, MandateDays: days,
			Owner: in.Owner}, r.ID, false)
		if err != nil {
			return err
		}
		if old != nil {
			if err := replaceAgent(ctx, tx, old.ID, id); err != nil {
				return err
			}
			if _, err := revokeAgentTokens(ctx, tx, old.ID); err != nil {
				return err
			}
			// A replaced agent is banned: its authority ends with it
			// (docs/security.md, finding 3).
			if err := s.revokeHeld(ctx, tx, e, old.ID); err != nil {
				return err
			}
		}
		c, err := s.connect(ctx, tx, p.ID, id, r.Client)
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
func (s *Service) Renew(ctx context.Context, by, id string) (*Renewed, error) {
	var out *Renewed
	err := s.ident.Act(ctx, by, identity.Approver, "admin.agent.renew", map[string]any{"agent_id": id},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			a, err := s.ident.GetAgent(ctx, tx, id, p.OrgID)
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
			r, err := getRole(ctx, tx, p.OrgID, *a.RoleID)
			if err != nil {
				return err
			}
			md, err := s.issueFromRole(ctx, tx, p, a.ID, r, a.Projects[:1])
			if err != nil {
				return err
			}
			e.MandateChain, e.ProjectID = []uuid.UUID{md.ID}, a.Projects[0]
			out = &Renewed{AgentID: id, MandateID: md.ID, ExpiresAt: md.ExpiresAt}
			return nil
		})
	return out, err
}

func (s *Service) issueFromRole(ctx context.Context, tx bun.Tx, p *identity.Person, agent string, r *AgentRole, projects []string) (*mandate.Mandate, error) {
	ends, err := s.ident.Term("the role's mandate term", r.MandateDays)
	if err != nil {
		return nil, err
	}
	md, err := s.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: agent, Scope: roleScope(r, projects),
		Limits: r.Limits, Delegations: r.Delegations, ExpiresAt: ends})
	if err != nil {
		return nil, err
	}
	return md, setRootMandate(ctx, tx, agent, md.ID)
}

// SetRootMandate makes mandate id, just issued to agent in tx, the root
// mandate agent answers with: seams.AgentRootsSeam, for modules/mandates'
// replacement of a root.
func (s *Service) SetRootMandate(ctx context.Context, tx bun.IDB, agent string, id uuid.UUID) error {
	return setRootMandate(ctx, tx, agent, id)
}
