package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/ledger"
)

// ListedAgent is an agent as its organization's listing shows it: with its
// live tokens and whether it is listening.
type ListedAgent struct {
	Agent
	LiveTokens     int        `bun:"live_tokens"`
	ListeningUntil *time.Time `bun:"listening_until"`
	// Online: listening now or within the last 30 seconds.
	Online bool `bun:"online"`
}

// ListAgents lists the agents of org by id; only agent id when it is given
// (empty when org has no such agent).
func (s *Service) ListAgents(ctx context.Context, tx bun.IDB, org, id string) ([]ListedAgent, error) {
	out := []ListedAgent{}
	err := tx.NewRaw(`SELECT `+agentCols+`, a.listening_until,
		(SELECT count(*) FROM agent_tokens t WHERE t.agent_id = a.id AND t.revoked_at IS NULL AND t.expires_at > now()) AS live_tokens,
		coalesce(a.listening_until > now() - interval '30 seconds', false) AS online
		FROM agents a WHERE a.org_id = ? AND (? = '' OR a.id = ?) ORDER BY a.id`, org, id, id).Scan(ctx, &out)
	return out, err
}

// RegisterHired registers an agent in tx as person p, hired from role
// (recorded on the agent), with no token: it connects through a setup code
// or its owner's Claude app (modules/people's hiring). Refusals as
// RegisterAgent's.
func (s *Service) RegisterHired(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry, in AgentInput, role string) (*Registered, error) {
	return s.register(ctx, tx, p, e, in, role, false)
}

// ReplaceAgent bans agent old, points it at agent by and revokes its
// tokens, in tx.
func (s *Service) ReplaceAgent(ctx context.Context, tx bun.IDB, old, by string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE agents SET status = 'banned', replaced_by = ? WHERE id = ?`, by, old); err != nil {
		return fmt.Errorf("identity.ReplaceAgent: %w", err)
	}
	_, err := s.RevokeAgentTokens(ctx, tx, old)
	return err
}

// RevokeAgentTokens revokes every live token of agent, in tx, and returns
// how many.
func (s *Service) RevokeAgentTokens(ctx context.Context, tx bun.IDB, agent string) (int64, error) {
	res, err := tx.ExecContext(ctx, `UPDATE agent_tokens SET revoked_at = now() WHERE agent_id = ? AND revoked_at IS NULL`, agent)
	if err != nil {
		return 0, fmt.Errorf("identity.RevokeAgentTokens: %w", err)
	}
	return res.RowsAffected()
}

// SetAgentStatus sets agent's status (active, paused or banned), in tx;
// the caller checked it. Refusals: the database's (db.Refusal).
func (s *Service) SetAgentStatus(ctx context.Context, tx bun.IDB, agent, status string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET status = ? WHERE id = ?`, status, agent)
	return translate(err, "agent "+agent)
}

// SetAgentPreferences stores prefs, a JSON object the caller checked, as
// agent's preferences, in tx.
func (s *Service) SetAgentPreferences(ctx context.Context, tx bun.IDB, agent string, prefs []byte) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET preferences = ?::jsonb WHERE id = ?`, string(prefs), agent)
	return err
}

// SetAgentOwner makes person owner the owner of agent, in tx; the caller
// checked them (RequireHumanInOrg).
func (s *Service) SetAgentOwner(ctx context.Context, tx bun.IDB, agent, owner string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET owner = ? WHERE id = ?`, owner, agent)
	return err
}

// SetAgentRole records the role agent was hired from, in tx.
func (s *Service) SetAgentRole(ctx context.Context, tx bun.IDB, agent, role string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET role_id = ? WHERE id = ?`, role, agent)
	return err
}

// SetAgentProjects replaces the projects agent of org works in, in tx.
// Refusals: the database's (db.Refusal), e.g. a project of another
// organization.
func (s *Service) SetAgentProjects(ctx context.Context, tx bun.IDB, agent, org string, projects []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM agent_projects WHERE agent_id = ?`, agent); err != nil {
		return fmt.Errorf("identity.SetAgentProjects: %w", err)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id)
		SELECT ?, unnest(?::text[]), ?`, agent, pgdialect.Array(projects), org)
	return translate(err, "projects of agent "+agent)
}
