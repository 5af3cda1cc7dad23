package people

import (
	"context"
	"encoding/base64"
	"io"
	"regexp"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// agentID is the form of an agent's id (docs/specs/behavior.md §2.4); the
// database checks it too.
var agentID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

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

// RegisterAgent registers an agent, not from a role, with its root mandate
// (issued by `by`) and a first token. Refusals, in this order: forbidden;
// project_required (no project); invalid_request (id, client, project
// count, scope, limits or terms malformed); id_taken; not_found (owner or
// project not in the organization); project_mismatch (a scope or a runner
// outside what its projects allow).
func (s *Service) RegisterAgent(ctx context.Context, by string, in AgentInput) (*Registered, error) {
	payload := map[string]any{"id": in.ID, "client": in.Client, "projects": in.Projects, "scope": in.Scope,
		"limits": in.Limits, "delegations": in.Delegations, "mandate_days": in.MandateDays, "token_days": in.TokenDays, "owner": in.Owner}
	var out *Registered
	err := s.ident.Act(ctx, by, identity.Approver, "admin.agent.register", payload, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		var err error
		out, err = s.register(ctx, tx, p, e, in, "", true)
		return err
	})
	return out, err
}

// register is RegisterAgent inside tx, as p, hiring from role roleID ("" for
// none) and handing out a first token when withToken is set.
func (s *Service) register(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry, in AgentInput,
	roleID string, withToken bool) (*Registered, error) {
	if len(in.Projects) == 0 {
		return nil, errs.E(errs.ProjectRequired, "an agent needs at least one project (--projects a,b)")
	}
	if !agentID.MatchString(in.ID) {
		return nil, errs.E(errs.InvalidRequest, "agent id %q must be 1-63 characters of a-z, 0-9 and '-', starting with a letter or digit", in.ID)
	}
	if !identity.ValidClient(in.Client) {
		return nil, errs.E(errs.InvalidRequest, "client must be one of chat, cowork, design, code, gemini, runner, a2a, a2a-remote, not %q", in.Client)
	}
	if identity.SingleProject(in.Client) && len(in.Projects) != 1 {
		return nil, errs.E(errs.InvalidRequest, "%s agents work in exactly one project; got %d", in.Client, len(in.Projects))
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
	mandateEnds, err := s.ident.Term("--days (mandate)", in.MandateDays)
	if err != nil {
		return nil, err
	}
	tokenEnds, err := s.ident.Term("--days (token)", in.TokenDays)
	if err != nil {
		return nil, err
	}
	if taken, err := agentExists(ctx, tx, in.ID); err != nil || taken {
		if err == nil {
			err = errs.E(errs.IDTaken, "agent id %s is already taken", in.ID)
		}
		return nil, err
	}
	owner := in.Owner
	if owner == "" {
		owner = p.ID
	}
	if err := s.ident.RequireHumanInOrg(ctx, tx, owner, p.OrgID); err != nil {
		return nil, err
	}
	production := false
	for _, pr := range in.Projects {
		proj, err := identity.ProjectInOrg(ctx, tx, pr, p.OrgID)
		if err != nil {
			return nil, err
		}
		production = production || proj.Production
	}
	if in.Client == "runner" && production {
		return nil, errs.E(errs.ProjectMismatch, "runners never work on production projects")
	}
	if err := identity.ScopesWithin(scope, in.Projects); err != nil {
		return nil, err
	}
	if err := insertAgent(ctx, tx, agentRow{ID: in.ID, Org: p.OrgID, Owner: owner, Client: in.Client, Role: roleID,
		Projects: in.Projects}); err != nil {
		return nil, err
	}
	m, err := s.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: in.ID, Scope: scope,
		Limits: in.Limits, Delegations: delegations, ExpiresAt: mandateEnds})
	if err != nil {
		return nil, err
	}
	if err := setRootMandate(ctx, tx, in.ID, m.ID); err != nil {
		return nil, err
	}
	e.AgentID, e.MandateChain = in.ID, []uuid.UUID{m.ID}
	if len(in.Projects) == 1 {
		e.ProjectID = in.Projects[0]
	}
	out := &Registered{AgentID: in.ID, RootMandateID: m.ID, MandateExpiresAt: m.ExpiresAt,
		ConnectorPath: "/mcp/a/" + in.ID}
	if !withToken {
		return out, nil
	}
	out.Token, err = s.newToken(ctx, tx, in.ID, tokenEnds)
	out.TokenExpiresAt = tokenEnds
	return out, err
}

// newToken stores a new token of agent lasting until expires, in tx, and
// returns it, for the caller to hand over once: identity.TokenPrefix +
// base64url (no padding) of 32 random bytes. Only its hash is stored
// (identity.HashToken), which is all identity's AuthenticateAgent reads.
func (s *Service) newToken(ctx context.Context, tx bun.IDB, agent string, expires time.Time) (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return "", err
	}
	token := identity.TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, insertToken(ctx, tx, identity.HashToken(token), agent, expires)
}
