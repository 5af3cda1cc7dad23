package board

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addWhoami(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_whoami", Title: "Who am I",
		Description: "Who you are on the board: your agent, your preferences (follow them), your projects and " +
			"their shared notes, the mandates you hold, the agents you can delegate to, and how many unread " +
			"messages wait for you. Call it first in every session.",
	}, m.whoami)
}

// whoamiIn: pact_whoami takes no arguments.
type whoamiIn struct{}

type whoamiOut struct {
	Agent          agentView     `json:"agent" jsonschema:"You."`
	Projects       []projectView `json:"projects" jsonschema:"Your projects, with their shared notes (read them with pact_note)."`
	Mandates       []heldMandate `json:"mandates" jsonschema:"The live mandates you hold, roots first."`
	Delegates      []delegate    `json:"delegates" jsonschema:"The active agents you share a project with: you can delegate to them (pact_post delegate_to)."`
	UnreadMessages int           `json:"unread_messages" jsonschema:"How many messages to you are unread."`
}

type agentView struct {
	ID          string          `bun:"id" json:"id" jsonschema:"Your agent id."`
	Client      string          `bun:"client" json:"client" jsonschema:"Your client class, e.g. code, runner, chat."`
	Owner       string          `bun:"owner" json:"owner" jsonschema:"The person who owns you."`
	Preferences json.RawMessage `bun:"preferences,type:jsonb" json:"preferences" jsonschema:"Your owner's preferences: follow them."`
	Role        *roleView       `bun:"-" json:"role" jsonschema:"The role you were hired from, or null."`
}

type roleView struct {
	ID           string `bun:"id" json:"id" jsonschema:"The role's id."`
	Name         string `bun:"name" json:"name" jsonschema:"Its name."`
	Description  string `bun:"description" json:"description" jsonschema:"What it is for."`
	Instructions string `bun:"instructions" json:"instructions" jsonschema:"How to do the work: follow them."`
}

type noteRef struct {
	Key   string `bun:"key" json:"key" jsonschema:"The note's key (pact_note key)."`
	Title string `bun:"title" json:"title" jsonschema:"Its title."`
}

type projectView struct {
	ID         string    `bun:"id" json:"id" jsonschema:"The project's id."`
	Name       string    `bun:"name" json:"name" jsonschema:"Its name."`
	Production bool      `bun:"production" json:"production" jsonschema:"Whether it is production (Runners may not touch it)."`
	Frozen     bool      `bun:"frozen" json:"frozen" jsonschema:"Whether a person froze it (nothing changes in it)."`
	Context    []noteRef `bun:"-" json:"context" jsonschema:"Its shared notes, pinned first."`
}

type delegate struct {
	ID       string   `bun:"id" json:"id" jsonschema:"The agent's id."`
	Client   string   `bun:"client" json:"client" jsonschema:"Its client class."`
	Projects []string `bun:"projects,array" json:"projects" jsonschema:"The projects you share."`
}

type heldMandate struct {
	ID              string             `bun:"id" json:"id" jsonschema:"The mandate's id: pass it as mandate_id."`
	ParentID        *string            `bun:"parent_id" json:"parent_id" jsonschema:"The mandate it was delegated from, or null for a root."`
	Issuer          string             `bun:"issuer" json:"issuer" jsonschema:"Who issued it."`
	Scope           []string           `bun:"scope,array" json:"scope" jsonschema:"What it allows, e.g. task.post@project:web."`
	Limits          map[string]float64 `bun:"limits,type:jsonb" json:"limits" jsonschema:"Its budgets, e.g. {\"runs\": 3}."`
	DelegationsLeft int                `bun:"delegations_left" json:"delegations_left" jsonschema:"How many more times it can be delegated down."`
	ExpiresAt       time.Time          `bun:"expires_at" json:"-"`
	Expires         string             `bun:"-" json:"expires_at" jsonschema:"When it expires."`
}

func (m *Module) whoami(ctx context.Context, c *kernel.Call, _ whoamiIn) (whoamiOut, error) {
	c.Entry.Payload = map[string]any{}
	tx := c.Tx
	var agent agentView
	if err := tx.NewRaw(`SELECT id, client, owner, preferences FROM agents WHERE id = ?`, c.AgentID).Scan(ctx, &agent); err != nil {
		return whoamiOut{}, err
	}
	// The role the agent was hired from, joined on (org, id): role ids
	// repeat in every organization.
	var roles []roleView
	if err := tx.NewRaw(`SELECT r.id, r.name, r.description, r.instructions FROM agents a
		JOIN agent_roles r ON r.org_id = a.org_id AND r.id = a.role_id WHERE a.id = ?`, c.AgentID).Scan(ctx, &roles); err != nil {
		return whoamiOut{}, err
	}
	if len(roles) == 1 {
		agent.Role = &roles[0]
	}
	projects := []projectView{}
	if err := tx.NewRaw(`SELECT p.id, p.name, p.production, p.frozen FROM projects p
		JOIN agent_projects ap ON ap.project_id = p.id WHERE ap.agent_id = ? ORDER BY p.id`, c.AgentID).Scan(ctx, &projects); err != nil {
		return whoamiOut{}, err
	}
	for i := range projects {
		projects[i].Context = []noteRef{}
		if err := tx.NewRaw(`SELECT key, title FROM context_notes WHERE project_id = ? AND archived_at IS NULL
			ORDER BY pinned DESC, key`, projects[i].ID).Scan(ctx, &projects[i].Context); err != nil {
			return whoamiOut{}, err
		}
	}
	mandates := []heldMandate{}
	if err := tx.NewRaw(`SELECT id::text, parent_id::text, issuer, scope, limits, delegations_left, expires_at
		FROM mandates WHERE holder = ? AND revoked_at IS NULL AND expires_at > now()
		ORDER BY depth, created_at`, c.AgentID).Scan(ctx, &mandates); err != nil {
		return whoamiOut{}, err
	}
	for i := range mandates {
		mandates[i].Expires = canon.ISO(mandates[i].ExpiresAt)
	}
	delegates := []delegate{}
	if err := tx.NewRaw(`SELECT a.id, a.client, array_agg(ap.project_id ORDER BY ap.project_id) AS projects
		FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id <> ? AND a.status = 'active'
		  AND ap.project_id IN (SELECT project_id FROM agent_projects WHERE agent_id = ?)
		GROUP BY a.id, a.client ORDER BY a.id`, c.AgentID, c.AgentID).Scan(ctx, &delegates); err != nil {
		return whoamiOut{}, err
	}
	var unread int
	if err := tx.NewRaw(`SELECT count(*) FROM task_messages WHERE to_agent = ? AND read_at IS NULL`, c.AgentID).Scan(ctx, &unread); err != nil {
		return whoamiOut{}, err
	}
	return whoamiOut{Agent: agent, Projects: projects, Mandates: mandates, Delegates: delegates, UnreadMessages: unread}, nil
}
