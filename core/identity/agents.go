package identity

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Clients an agent can be.
var clients = map[string]bool{"chat": true, "cowork": true, "design": true, "code": true, "gemini": true, "runner": true}

// singleProject clients work in exactly one project.
var singleProject = map[string]bool{"code": true, "runner": true}

// Clients are the clients an agent can be, sorted.
func Clients() []string {
	out := make([]string, 0, len(clients))
	for c := range clients {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// ValidClient reports whether client is a client an agent can be.
func ValidClient(client string) bool { return clients[client] }

// SingleProject reports whether agents of client work in exactly one
// project.
func SingleProject(client string) bool { return singleProject[client] }

// Agent is a registered agent.
type Agent struct {
	ID            string          `bun:"id" json:"id"`
	OrgID         string          `bun:"org_id" json:"org_id"`
	Owner         string          `bun:"owner" json:"owner"`
	Client        string          `bun:"client" json:"client"`
	Status        string          `bun:"status" json:"status"`
	RootMandateID *uuid.UUID      `bun:"root_mandate_id" json:"root_mandate_id"`
	LastSeen      *time.Time      `bun:"last_seen" json:"last_seen"`
	Preferences   json.RawMessage `bun:"preferences,type:jsonb" json:"preferences"`
	ReplacedBy    *string         `bun:"replaced_by" json:"replaced_by"`
	RoleID        *string         `bun:"role_id" json:"role_id"`
	CreatedAt     time.Time       `bun:"created_at" json:"created_at"`
	Projects      []string        `bun:"projects,array" json:"projects"`
}

const agentCols = `a.id, a.org_id, a.owner, a.client, a.status, a.root_mandate_id, a.last_seen, a.preferences,
	a.replaced_by, a.role_id, a.created_at,
	coalesce((SELECT array_agg(project_id ORDER BY project_id) FROM agent_projects WHERE agent_id = a.id), '{}') AS projects`

// GetAgent returns agent id when it belongs to org ("" for any organization);
// otherwise not_found.
func (s *Service) GetAgent(ctx context.Context, tx bun.IDB, id, org string) (*Agent, error) {
	var as []Agent
	err := tx.NewRaw(`SELECT `+agentCols+` FROM agents a WHERE a.id = ? AND (? = '' OR a.org_id = ?)`, id, org, org).Scan(ctx, &as)
	if err != nil {
		return nil, fmt.Errorf("identity.GetAgent: %w", err)
	}
	if len(as) == 0 {
		return nil, errs.E(errs.NotFound, "agent %s does not exist", id)
	}
	return &as[0], nil
}

// AgentInput describes an agent to register.
type AgentInput struct {
	ID          string
	Client      string
	Projects    []string
	Scope       []string           // default: task.read, task.post, task.work, pact.read and pact.write on each project
	Limits      map[string]float64 // budgets on the root mandate
	Delegations *int               // default 2
	MandateDays float64            // default 30
	TokenDays   float64            // default 30
	Owner       string             // default: the person registering
}

// Registered is what a registration hands back, once: the token is never
// shown again.
type Registered struct {
	AgentID          string    `json:"agent_id"`
	RootMandateID    uuid.UUID `json:"root_mandate_id"`
	MandateExpiresAt time.Time `json:"mandate_expires_at"`
	ConnectorPath    string    `json:"connector_path"`
	Token            string    `json:"token"`
	TokenExpiresAt   time.Time `json:"token_expires_at"`
}

// RegisterAgent registers an agent with its root mandate (issued by `by`)
// and a first token. Refusals, in this order: forbidden; project_required
// (no project); invalid_request (id, client, project count, scope, limits or
// terms malformed); id_taken; not_found (owner or project not in the
// organization); project_mismatch (a scope or a runner outside what its
// projects allow).
func (s *Service) RegisterAgent(ctx context.Context, by string, in AgentInput) (*Registered, error) {
	payload := map[string]any{"id": in.ID, "client": in.Client, "projects": in.Projects, "scope": in.Scope,
		"limits": in.Limits, "delegations": in.Delegations, "mandate_days": in.MandateDays, "token_days": in.TokenDays, "owner": in.Owner}
	var out *Registered
	err := s.Act(ctx, by, Approver, "admin.agent.register", payload, func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
		var err error
		out, err = s.register(ctx, tx, p, e, in, "", true)
		return err
	})
	return out, err
}

// register is RegisterAgent inside tx, as p, hiring from role roleID ("" for
// none) and handing out a first token when withToken is set.
func (s *Service) register(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry, in AgentInput,
	roleID string, withToken bool) (*Registered, error) {
	var out *Registered
	err := func() error {
		if len(in.Projects) == 0 {
			return errs.E(errs.ProjectRequired, "an agent needs at least one project (--projects a,b)")
		}
		if !slugID.MatchString(in.ID) {
			return errs.E(errs.InvalidRequest, "agent id %q must be 1-63 characters of a-z, 0-9 and '-', starting with a letter or digit", in.ID)
		}
		if !clients[in.Client] {
			return errs.E(errs.InvalidRequest, "client must be one of chat, cowork, design, code, gemini, runner, not %q", in.Client)
		}
		if singleProject[in.Client] && len(in.Projects) != 1 {
			return errs.E(errs.InvalidRequest, "%s agents work in exactly one project; got %d", in.Client, len(in.Projects))
		}
		scope := in.Scope
		if len(scope) == 0 {
			for _, pr := range in.Projects {
				scope = append(scope, "task.read@project:"+pr, "task.post@project:"+pr, "task.work@project:"+pr,
					"pact.read@project:"+pr, "pact.write@project:"+pr)
			}
		}
		delegations := 2
		if in.Delegations != nil {
			delegations = *in.Delegations
		}
		mandateEnds, err := s.Term("--days (mandate)", in.MandateDays)
		if err != nil {
			return err
		}
		tokenEnds, err := s.Term("--days (token)", in.TokenDays)
		if err != nil {
			return err
		}
		if err := idFree(ctx, tx, "agents", in.ID, "agent"); err != nil {
			return err
		}
		owner := in.Owner
		if owner == "" {
			owner = p.ID
		}
		if err := s.RequireHumanInOrg(ctx, tx, owner, p.OrgID); err != nil {
			return err
		}
		production := false
		for _, pr := range in.Projects {
			proj, err := ProjectInOrg(ctx, tx, pr, p.OrgID)
			if err != nil {
				return err
			}
			production = production || proj.Production
		}
		if in.Client == "runner" && production {
			return errs.E(errs.ProjectMismatch, "runners never work on production projects")
		}
		if err := ScopesWithin(scope, in.Projects); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client, role_id) VALUES (?, ?, ?, ?, ?)`,
			in.ID, p.OrgID, owner, in.Client, nilIfEmpty(roleID))
		if err != nil {
			return translate(err, "agent "+in.ID)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id)
			SELECT ?, unnest(?::text[]), ?`, in.ID, pgdialect.Array(in.Projects), p.OrgID)
		if err != nil {
			return translate(err, "projects of agent "+in.ID)
		}
		m, err := s.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: in.ID, Scope: scope,
			Limits: in.Limits, Delegations: delegations, ExpiresAt: mandateEnds})
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE agents SET root_mandate_id = ? WHERE id = ?`, m.ID, in.ID); err != nil {
			return fmt.Errorf("identity.register: %w", err)
		}
		e.AgentID, e.MandateChain = in.ID, []uuid.UUID{m.ID}
		if len(in.Projects) == 1 {
			e.ProjectID = in.Projects[0]
		}
		out = &Registered{AgentID: in.ID, RootMandateID: m.ID, MandateExpiresAt: m.ExpiresAt,
			ConnectorPath: "/mcp/a/" + in.ID}
		if !withToken {
			return nil
		}
		out.Token, err = s.NewToken(ctx, tx, in.ID, tokenEnds)
		out.TokenExpiresAt = tokenEnds
		return err
	}()
	return out, err
}

// ScopesWithin refuses a board scope naming a project the agent is not
// registered for; other scopes must merely be well formed.
func ScopesWithin(scope, projects []string) error {
	allowed := map[string]bool{}
	for _, p := range projects {
		allowed[p] = true
	}
	for _, sc := range scope {
		if err := mandate.ValidScope(sc); err != nil {
			return err
		}
		if _, project, ok := mandate.ParseBoardScope(sc); ok && !allowed[project] {
			return errs.E(errs.ProjectMismatch, "scope %s names project %s, which the agent is not registered for", sc, project)
		}
	}
	return nil
}

// RequireHumanInOrg refuses (not_found) owner unless they are an active
// person of org: the owner of an agent, the person a trusted root stands for.
func (s *Service) RequireHumanInOrg(ctx context.Context, tx bun.IDB, owner, org string) error {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM humans WHERE id = ? AND org_id = ? AND disabled_at IS NULL`, owner, org).Scan(ctx, &n)
	if err != nil {
		return fmt.Errorf("identity.RequireHumanInOrg: %w", err)
	}
	if n == 0 {
		return errs.E(errs.NotFound, "human %s does not exist", owner)
	}
	return nil
}

// SetRootMandate makes mandate id the root mandate agent answers with, for
// the modules that issue roots on a person's behalf (a replacement, a hire's
// renewal).
func (s *Service) SetRootMandate(ctx context.Context, tx bun.IDB, agent string, id uuid.UUID) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET root_mandate_id = ? WHERE id = ?`, id.String(), agent)
	return err
}
