package people

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/db"
)

// The store of agents, agent_projects and agent_tokens, in bun's dialect:
// the rows of the agent's lifecycle (registration, hiring, replacement,
// status, owner, role, projects, tokens). core/identity reads them, as the
// principals every call is checked against; only this store writes them
// (docs/architecture.md, "Table ownership").

// agentRow is an agent as registration writes it.
type agentRow struct {
	ID, Org, Owner, Client string
	Role                   string // "" when not hired from a role
	Projects               []string
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// agentExists reports whether id is an agent's, in any organization (agent
// ids are global).
func agentExists(ctx context.Context, tx bun.IDB, id string) (bool, error) {
	var taken bool
	if err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM agents WHERE id = ?)`, id).Scan(ctx, &taken); err != nil {
		return false, fmt.Errorf("people.agentExists: %w", err)
	}
	return taken, nil
}

// insertAgent writes a new agent and its projects. Refusals: the
// database's (db.Refusal).
func insertAgent(ctx context.Context, tx bun.IDB, a agentRow) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client, role_id) VALUES (?, ?, ?, ?, ?)`,
		a.ID, a.Org, a.Owner, a.Client, nilIfEmpty(a.Role))
	if err != nil {
		return db.Refusal(err, "agent "+a.ID)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id)
		SELECT ?, unnest(?::text[]), ?`, a.ID, pgdialect.Array(a.Projects), a.Org)
	return db.Refusal(err, "projects of agent "+a.ID)
}

// setRootMandate makes mandate id the root mandate agent answers with.
func setRootMandate(ctx context.Context, tx bun.IDB, agent string, id uuid.UUID) error {
	if _, err := tx.ExecContext(ctx, `UPDATE agents SET root_mandate_id = ? WHERE id = ?`, id.String(), agent); err != nil {
		return fmt.Errorf("people.setRootMandate: %w", err)
	}
	return nil
}

// replaceAgent bans agent old and points it at agent by.
func replaceAgent(ctx context.Context, tx bun.IDB, old, by string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE agents SET status = 'banned', replaced_by = ? WHERE id = ?`, by, old); err != nil {
		return fmt.Errorf("people.replaceAgent: %w", err)
	}
	return nil
}

// setAgentStatus sets agent's status (active, paused or banned). Refusals:
// the database's (db.Refusal).
func setAgentStatus(ctx context.Context, tx bun.IDB, agent, status string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET status = ? WHERE id = ?`, status, agent)
	return db.Refusal(err, "agent "+agent)
}

// setAgentPreferences stores prefs, a JSON object, as agent's preferences.
func setAgentPreferences(ctx context.Context, tx bun.IDB, agent string, prefs []byte) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET preferences = ?::jsonb WHERE id = ?`, string(prefs), agent)
	return err
}

// setAgentOwner makes person owner the owner of agent.
func setAgentOwner(ctx context.Context, tx bun.IDB, agent, owner string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET owner = ? WHERE id = ?`, owner, agent)
	return err
}

// setAgentRole records the role agent was hired from.
func setAgentRole(ctx context.Context, tx bun.IDB, agent, role string) error {
	_, err := tx.ExecContext(ctx, `UPDATE agents SET role_id = ? WHERE id = ?`, role, agent)
	return err
}

// setAgentProjects replaces the projects agent of org works in. Refusals:
// the database's (db.Refusal), e.g. a project of another organization.
func setAgentProjects(ctx context.Context, tx bun.IDB, agent, org string, projects []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM agent_projects WHERE agent_id = ?`, agent); err != nil {
		return fmt.Errorf("people.setAgentProjects: %w", err)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id)
		SELECT ?, unnest(?::text[]), ?`, agent, pgdialect.Array(projects), org)
	return db.Refusal(err, "projects of agent "+agent)
}

// insertToken stores the hash of a new token of agent, live until expires.
func insertToken(ctx context.Context, tx bun.IDB, hash, agent string, expires time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_tokens (token_hash, agent_id, expires_at) VALUES (?, ?, ?)`,
		hash, agent, expires)
	return err
}

// revokeAgentTokens revokes every live token of agent and returns how many.
func revokeAgentTokens(ctx context.Context, tx bun.IDB, agent string) (int64, error) {
	res, err := tx.ExecContext(ctx, `UPDATE agent_tokens SET revoked_at = now() WHERE agent_id = ? AND revoked_at IS NULL`, agent)
	if err != nil {
		return 0, fmt.Errorf("people.revokeAgentTokens: %w", err)
	}
	return res.RowsAffected()
}
