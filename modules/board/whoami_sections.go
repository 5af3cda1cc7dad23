package board

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/kernel"
)

// The board's own sections of pact_whoami (kernel.Whoami).

func (m *Module) addWhoamiSections(h *kernel.Host) error {
	m.whoamiSections = h.Whoami()
	for name, build := range map[string]kernel.WhoamiSectionFunc{
		"agent": whoamiAgent, "mandates": heldMandates, "delegates": delegates, "unread_messages": unreadCount,
	} {
		if err := h.WhoamiSection(name, build); err != nil {
			return err
		}
	}
	return nil
}

// whoamiAgent is the caller; its role is the people module's section.
func whoamiAgent(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	var agent agentView
	if err := tx.NewRaw(`SELECT id, client, owner, preferences FROM agents WHERE id = ?`, c.AgentID).Scan(ctx, &agent); err != nil {
		return nil, fmt.Errorf("agent %s: %w", c.AgentID, err)
	}
	return agent, nil
}

// agentProjects are the caller's projects, by id, without their sections.
func agentProjects(ctx context.Context, tx bun.IDB, agent string) ([]projectView, error) {
	projects := []projectView{}
	if err := tx.NewRaw(`SELECT p.id, p.name, p.production, p.frozen FROM projects p
		JOIN agent_projects ap ON ap.project_id = p.id WHERE ap.agent_id = ? ORDER BY p.id`, agent).Scan(ctx, &projects); err != nil {
		return nil, fmt.Errorf("projects of agent %s: %w", agent, err)
	}
	return projects, nil
}

// heldMandates are the caller's live mandates, roots first.
func heldMandates(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	mandates := []heldMandate{}
	if err := tx.NewRaw(`SELECT id::text, parent_id::text, issuer, scope, limits, delegations_left, expires_at
		FROM mandates WHERE holder = ? AND revoked_at IS NULL AND expires_at > now()
		ORDER BY depth, created_at`, c.AgentID).Scan(ctx, &mandates); err != nil {
		return nil, fmt.Errorf("mandates of agent %s: %w", c.AgentID, err)
	}
	for i := range mandates {
		mandates[i].Expires = canon.ISO(mandates[i].ExpiresAt)
	}
	return mandates, nil
}

// delegates are the active agents sharing a project with the caller.
func delegates(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	out := []delegate{}
	if err := tx.NewRaw(`SELECT a.id, a.client, array_agg(ap.project_id ORDER BY ap.project_id) AS projects
		FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id <> ? AND a.status = 'active'
		  AND ap.project_id IN (SELECT project_id FROM agent_projects WHERE agent_id = ?)
		GROUP BY a.id, a.client ORDER BY a.id`, c.AgentID, c.AgentID).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("delegates of agent %s: %w", c.AgentID, err)
	}
	return out, nil
}

// unreadCount is how many messages to the caller are unread.
func unreadCount(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	var unread int
	if err := tx.NewRaw(`SELECT count(*) FROM task_messages WHERE to_agent = ? AND read_at IS NULL`, c.AgentID).Scan(ctx, &unread); err != nil {
		return nil, fmt.Errorf("unread messages of agent %s: %w", c.AgentID, err)
	}
	return unread, nil
}
