package board

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
)

// The board's own sections of pact_whoami (kernel.Whoami).

func (m *Module) addWhoamiSections(h *kernel.Host) error {
	m.whoamiSections = h.Whoami()
	return h.WhoamiSectionGroup([]string{"agent", "mandates", "delegates", "unread_messages"}, m.whoamiOwn)
}

// whoamiOwn reads the board's sections in one statement: the caller (its
// role is the people module's section), its live mandates, roots first,
// the active agents sharing a project with it, and how many messages to it
// are unread.
func (m *Module) whoamiOwn(c kernel.WhoamiCaller) (db.Step, func() (map[string]any, error)) {
	var row struct {
		Agent, Mandates, Delegates []byte
		Unread                     int
	}
	read := db.Step{SQL: whoamiOwnSQL, Args: []any{c.AgentID}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		if !rows.Next() {
			return rows.Err()
		}
		return rows.Scan(&row.Agent, &row.Mandates, &row.Delegates, &row.Unread)
	}}
	return read, func() (map[string]any, error) {
		return whoamiOwnValues(c, row.Agent, row.Mandates, row.Delegates, row.Unread)
	}
}

const whoamiOwnSQL = `SELECT
		(SELECT json_build_object('id', a.id, 'client', a.client, 'owner', a.owner, 'preferences', a.preferences)
			FROM agents a WHERE a.id = $1) AS agent,
		(SELECT coalesce(json_agg(json_build_object('id', m.id, 'parent_id', m.parent_id, 'issuer', m.issuer,
				'scope', m.scope, 'limits', m.limits, 'delegations_left', m.delegations_left, 'expires_at', m.expires_at)
				ORDER BY m.depth, m.created_at), '[]')
			FROM mandates m WHERE m.holder = $1 AND m.revoked_at IS NULL AND m.expires_at > now()) AS mandates,
		(SELECT coalesce(json_agg(d ORDER BY d.id), '[]') FROM (
			SELECT a.id, a.client, array_agg(ap.project_id ORDER BY ap.project_id) AS projects
			FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
			WHERE a.id <> $1 AND a.status = 'active'
			  AND ap.project_id IN (SELECT project_id FROM agent_projects WHERE agent_id = $1)
			GROUP BY a.id, a.client) d) AS delegates,
		(SELECT count(*) FROM task_messages WHERE to_agent = $1 AND read_at IS NULL) AS unread`

// whoamiOwnValues decodes whoamiOwnSQL's row into the board's sections.
func whoamiOwnValues(c kernel.WhoamiCaller, agentRow, mandatesRow, delegatesRow []byte, unread int) (map[string]any, error) {
	var agent agentView
	var held []struct {
		heldMandate
		ExpiresAt time.Time `json:"expires_at"`
	}
	delegates := []delegate{}
	for _, part := range []struct {
		raw  []byte
		into any
	}{{agentRow, &agent}, {mandatesRow, &held}, {delegatesRow, &delegates}} {
		if err := json.Unmarshal(part.raw, part.into); err != nil {
			return nil, fmt.Errorf("agent %s: read its sections: %w", c.AgentID, err)
		}
	}
	mandates := make([]heldMandate, len(held))
	for i, h := range held {
		mandates[i] = h.heldMandate
		mandates[i].ExpiresAt, mandates[i].Expires = h.ExpiresAt, canon.ISO(h.ExpiresAt)
	}
	return map[string]any{"agent": agent, "mandates": mandates, "delegates": delegates, "unread_messages": unread}, nil
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
