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
		"agent": m.whoamiAgent, "mandates": m.heldMandates, "delegates": m.delegates, "unread_messages": m.unreadCount,
	} {
		if err := h.WhoamiSection(name, build); err != nil {
			return err
		}
	}
	return nil
}

// whoamiAgent is the caller; its role is the people module's section.
func (m *Module) whoamiAgent(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	var agent agentView
	if err := m.db.Fetch(ctx, tx, &agent, `SELECT id, client, owner, preferences FROM agents WHERE id = $1`, c.AgentID); err != nil {
		return nil, fmt.Errorf("agent %s: %w", c.AgentID, err)
	}
	return agent, nil
}

// agentProjects are the caller's projects, by id, without their sections,
// as the tool pipeline's gate read them.
func agentProjects(who *caller) []projectView {
	projects := make([]projectView, 0, len(who.Projects))
	for _, id := range who.Projects {
		if p := who.Project(id); p != nil {
			projects = append(projects, projectView{ID: p.ID, Name: p.Name, Production: p.Production, Frozen: p.Frozen})
		}
	}
	return projects
}

// heldMandates are the caller's live mandates, roots first.
func (m *Module) heldMandates(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	mandates := []heldMandate{}
	if err := m.db.Fetch(ctx, tx, &mandates, `SELECT id::text, parent_id::text, issuer, scope, limits, delegations_left,
			expires_at
		FROM mandates WHERE holder = $1 AND revoked_at IS NULL AND expires_at > now()
		ORDER BY depth, created_at`, c.AgentID); err != nil {
		return nil, fmt.Errorf("mandates of agent %s: %w", c.AgentID, err)
	}
	for i := range mandates {
		mandates[i].Expires = canon.ISO(mandates[i].ExpiresAt)
	}
	return mandates, nil
}

// delegates are the active agents sharing a project with the caller.
func (m *Module) delegates(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	out := []delegate{}
	if err := m.db.Fetch(ctx, tx, &out, `SELECT a.id, a.client, array_agg(ap.project_id ORDER BY ap.project_id) AS projects
		FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id <> $1 AND a.status = 'active'
		  AND ap.project_id IN (SELECT project_id FROM agent_projects WHERE agent_id = $1)
		GROUP BY a.id, a.client ORDER BY a.id`, c.AgentID); err != nil {
		return nil, fmt.Errorf("delegates of agent %s: %w", c.AgentID, err)
	}
	return out, nil
}

// unreadCount is how many messages to the caller are unread.
func (m *Module) unreadCount(ctx context.Context, tx bun.IDB, c kernel.WhoamiCaller) (any, error) {
	var unread int
	if err := m.db.FetchInto(ctx, tx, `SELECT count(*) FROM task_messages WHERE to_agent = $1 AND read_at IS NULL`,
		[]any{c.AgentID}, &unread); err != nil {
		return nil, fmt.Errorf("unread messages of agent %s: %w", c.AgentID, err)
	}
	return unread, nil
}
