package kerneltest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
)

// Agents are registered by modules/people, which decides every rule of an
// agent's lifecycle and owns its tables (docs/architecture.md, "Table
// ownership"). Core and the other modules cannot import it, so their tests
// seed agents here: the rows registration writes for a well-formed
// request, its root mandate, a first token and its log entry, and nothing
// it checks. modules/people's tests prove the registration itself.

// AgentInput describes an agent to seed, as people.AgentInput does; zero
// values take registration's defaults.
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

// Registered is a seeded agent: its root mandate and its token.
type Registered struct {
	AgentID          string
	RootMandateID    uuid.UUID
	MandateExpiresAt time.Time
	Token            string
	TokenExpiresAt   time.Time
}

// Agent seeds an agent, by person by (an approver of the organization it
// joins), and keeps its token and root mandate for Call and Root.
func (w *World) Agent(by string, in AgentInput) *Registered {
	w.T.Helper()
	r, err := w.RegisterAgent(by, in)
	require.NoError(w.T, err)
	return r
}

// RegisterAgent seeds an agent as Agent does and returns the error instead
// of failing the test: the refusals of identity.Act (by unknown or below
// approver) and the database's.
func (w *World) RegisterAgent(by string, in AgentInput) (*Registered, error) {
	var out *Registered
	err := w.Identity.Act(context.Background(), by, identity.Approver, "admin.agent.register", map[string]any{"id": in.ID,
		"client": in.Client, "projects": in.Projects}, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		var err error
		out, err = w.seedAgent(ctx, tx, p, in)
		if out != nil {
			e.AgentID, e.MandateChain = in.ID, []uuid.UUID{out.RootMandateID}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roots[in.ID] = out.RootMandateID.String()
	w.tokens[in.ID] = out.Token
	return out, nil
}

func (w *World) seedAgent(ctx context.Context, tx bun.Tx, p *identity.Person, in AgentInput) (*Registered, error) {
	scope := in.Scope
	if len(scope) == 0 {
		for _, pr := range in.Projects {
			for _, a := range []string{"task.read", "task.post", "task.work", "pact.read", "pact.write"} {
				scope = append(scope, mandate.BoardScope(a, pr))
			}
		}
	}
	delegations := 2
	if in.Delegations != nil {
		delegations = *in.Delegations
	}
	mandateEnds, err := w.Identity.Term("mandate days", in.MandateDays)
	if err != nil {
		return nil, err
	}
	tokenEnds, err := w.Identity.Term("token days", in.TokenDays)
	if err != nil {
		return nil, err
	}
	owner := in.Owner
	if owner == "" {
		owner = p.ID
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client) VALUES (?, ?, ?, ?)`,
		in.ID, p.OrgID, owner, in.Client); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) SELECT ?, unnest(?::text[]), ?`,
		in.ID, pgdialect.Array(in.Projects), p.OrgID); err != nil {
		return nil, err
	}
	m, err := w.Mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: in.ID, Scope: scope,
		Limits: in.Limits, Delegations: delegations, ExpiresAt: mandateEnds})
	if err != nil {
		return nil, err
	}
	if err := (agentRoots{}).SetRootMandate(ctx, tx, in.ID, m.ID); err != nil {
		return nil, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	token := identity.TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	if _, err := tx.ExecContext(ctx, `INSERT INTO agent_tokens (token_hash, agent_id, expires_at) VALUES (?, ?, ?)`,
		identity.HashToken(token), in.ID, tokenEnds); err != nil {
		return nil, err
	}
	return &Registered{AgentID: in.ID, RootMandateID: m.ID, MandateExpiresAt: m.ExpiresAt, Token: token,
		TokenExpiresAt: tokenEnds}, nil
}

// agentRoots stands in for modules/people's seams.AgentRoots.
type agentRoots struct{}

// SetRootMandate makes mandate id the root mandate agent answers with.
func (agentRoots) SetRootMandate(ctx context.Context, tx bun.IDB, agent string, id uuid.UUID) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET root_mandate_id = ? WHERE id = ?`, id.String(), agent)
	return err
}

// PeopleStandIn is a module providing what modules/people provides through
// the kernel's seams (seams.AgentRootsSeam), for the tests of a module that
// uses them and cannot import modules/people.
func PeopleStandIn() kernel.Module { return peopleStandIn{} }

type peopleStandIn struct{}

func (peopleStandIn) Name() string { return "peoplestandin" }

func (peopleStandIn) Register(h *kernel.Host) error {
	return kernel.Provide(h, seams.AgentRootsSeam, seams.AgentRoots(agentRoots{}))
}

// IssueToken seeds a further token of agent, live for a day, and makes it
// the one Call presents.
func (w *World) IssueToken(agent string) string {
	w.T.Helper()
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(w.T, err)
	token := identity.TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	_, err = w.DB.ExecContext(context.Background(), `INSERT INTO agent_tokens (token_hash, agent_id, expires_at)
		VALUES (?, ?, now() + interval '1 day')`, identity.HashToken(token), agent)
	require.NoError(w.T, err)
	w.SetToken(agent, token)
	return token
}

// RevokeTokens revokes every live token of agent, as people's token
// operation does.
func (w *World) RevokeTokens(agent string) {
	w.T.Helper()
	_, err := w.DB.ExecContext(context.Background(), `UPDATE agent_tokens SET revoked_at = now()
		WHERE agent_id = ? AND revoked_at IS NULL`, agent)
	require.NoError(w.T, err)
}

// SetAgentStatus sets agent's status (active, paused or banned) as the row
// write of people's status operation does, with none of its checks or
// revocations: the database's own reactions (a ban stops the agent's
// tasks) follow.
func (w *World) SetAgentStatus(agent, status string) error {
	_, err := w.DB.ExecContext(context.Background(), `UPDATE agents SET status = ? WHERE id = ?`, status, agent)
	return err
}

// SetAgentProjects replaces the projects agent of org works in, as the row
// write of people's agent change does, with none of its checks.
func (w *World) SetAgentProjects(agent, org string, projects []string) error {
	ctx := context.Background()
	return w.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_projects WHERE agent_id = ?`, agent); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) SELECT ?, unnest(?::text[]), ?`,
			agent, pgdialect.Array(projects), org)
		return err
	})
}
