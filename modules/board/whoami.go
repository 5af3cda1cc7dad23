package board

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) whoamiTool() kernel.Tool {
	return kernel.Tool{
		Name: "pact_whoami", Title: "Who am I",
		Description: "Who you are on the board: your agent, your preferences (follow them), your projects and " +
			"their shared notes, the mandates you hold, the agents you can delegate to, and how many unread " +
			"messages wait for you. Call it first in every session.",
		Input: object(nil, map[string]*jsonschema.Schema{}),
		Run:   m.whoami,
	}
}

type heldMandate struct {
	ID              string             `bun:"id" json:"id"`
	ParentID        *string            `bun:"parent_id" json:"parent_id"`
	Issuer          string             `bun:"issuer" json:"issuer"`
	Scope           []string           `bun:"scope,array" json:"scope"`
	Limits          map[string]float64 `bun:"limits,type:jsonb" json:"limits"`
	DelegationsLeft int                `bun:"delegations_left" json:"delegations_left"`
	ExpiresAt       time.Time          `bun:"expires_at" json:"-"`
	Expires         string             `bun:"-" json:"expires_at"`
}

func (m *Module) whoami(ctx context.Context, c *kernel.Call) (any, error) {
	c.Entry.Payload = map[string]any{}
	tx := c.Tx
	var agent struct {
		ID          string          `bun:"id" json:"id"`
		Client      string          `bun:"client" json:"client"`
		Owner       string          `bun:"owner" json:"owner"`
		Preferences json.RawMessage `bun:"preferences,type:jsonb" json:"preferences"`
		Role        any             `bun:"-" json:"role"`
	}
	if err := tx.NewRaw(`SELECT id, client, owner, preferences FROM agents WHERE id = ?`, c.AgentID).Scan(ctx, &agent); err != nil {
		return nil, err
	}
	// The role the agent was hired from, joined on (org, id): role ids
	// repeat in every organization.
	var roles []struct {
		ID           string `bun:"id" json:"id"`
		Name         string `bun:"name" json:"name"`
		Description  string `bun:"description" json:"description"`
		Instructions string `bun:"instructions" json:"instructions"`
	}
	if err := tx.NewRaw(`SELECT r.id, r.name, r.description, r.instructions FROM agents a
		JOIN agent_roles r ON r.org_id = a.org_id AND r.id = a.role_id WHERE a.id = ?`, c.AgentID).Scan(ctx, &roles); err != nil {
		return nil, err
	}
	if len(roles) == 1 {
		agent.Role = roles[0]
	}
	type note struct {
		Key   string `bun:"key" json:"key"`
		Title string `bun:"title" json:"title"`
	}
	type proj struct {
		ID         string `bun:"id" json:"id"`
		Name       string `bun:"name" json:"name"`
		Production bool   `bun:"production" json:"production"`
		Frozen     bool   `bun:"frozen" json:"frozen"`
		Context    []note `bun:"-" json:"context"`
	}
	projects := []proj{}
	if err := tx.NewRaw(`SELECT p.id, p.name, p.production, p.frozen FROM projects p
		JOIN agent_projects ap ON ap.project_id = p.id WHERE ap.agent_id = ? ORDER BY p.id`, c.AgentID).Scan(ctx, &projects); err != nil {
		return nil, err
	}
	for i := range projects {
		projects[i].Context = []note{}
		if err := tx.NewRaw(`SELECT key, title FROM context_notes WHERE project_id = ? AND archived_at IS NULL
			ORDER BY pinned DESC, key`, projects[i].ID).Scan(ctx, &projects[i].Context); err != nil {
			return nil, err
		}
	}
	mandates := []heldMandate{}
	if err := tx.NewRaw(`SELECT id::text, parent_id::text, issuer, scope, limits, delegations_left, expires_at
		FROM mandates WHERE holder = ? AND revoked_at IS NULL AND expires_at > now()
		ORDER BY depth, created_at`, c.AgentID).Scan(ctx, &mandates); err != nil {
		return nil, err
	}
	for i := range mandates {
		mandates[i].Expires = canon.ISO(mandates[i].ExpiresAt)
	}
	type delegate struct {
		ID       string   `bun:"id" json:"id"`
		Client   string   `bun:"client" json:"client"`
		Projects []string `bun:"projects,array" json:"projects"`
	}
	delegates := []delegate{}
	if err := tx.NewRaw(`SELECT a.id, a.client, array_agg(ap.project_id ORDER BY ap.project_id) AS projects
		FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id <> ? AND a.status = 'active'
		  AND ap.project_id IN (SELECT project_id FROM agent_projects WHERE agent_id = ?)
		GROUP BY a.id, a.client ORDER BY a.id`, c.AgentID, c.AgentID).Scan(ctx, &delegates); err != nil {
		return nil, err
	}
	var unread int
	if err := tx.NewRaw(`SELECT count(*) FROM task_messages WHERE to_agent = ? AND read_at IS NULL`, c.AgentID).Scan(ctx, &unread); err != nil {
		return nil, err
	}
	return map[string]any{"agent": agent, "projects": projects, "mandates": mandates,
		"delegates": delegates, "unread_messages": unread}, nil
}
