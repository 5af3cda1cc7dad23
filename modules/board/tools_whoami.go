package board

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addWhoami(h *kernel.Host) error {
	m.whoamiSections = h.Whoami()
	if err := h.WhoamiSectionGroup(whoamiSectionNames, m.svc.whoamiOwn); err != nil {
		return err
	}
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_whoami", Effect: kernel.Reads, RoundTrips: 3, Title: "Who am I",
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
	// Role is the "role" section, which modules/people registers.
	Role any `bun:"-" json:"role" jsonschema:"The role you were hired from (id, name, description, and instructions: follow them), or null."`
}

type projectView struct {
	ID         string `bun:"id" json:"id" jsonschema:"The project's id."`
	Name       string `bun:"name" json:"name" jsonschema:"Its name."`
	Production bool   `bun:"production" json:"production" jsonschema:"Whether it is production (Runners may not touch it)."`
	Frozen     bool   `bun:"frozen" json:"frozen" jsonschema:"Whether a person froze it (nothing changes in it)."`
	// Context is the per-project "context" section, which modules/notes
	// registers.
	Context any `bun:"-" json:"context" jsonschema:"Its shared notes (key and title), pinned first."`
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

// whoami assembles the answer from the sections modules registered
// (kernel.Whoami): the board's own (agent, mandates, delegates,
// unread_messages), the people module's role, which the answer carries in
// agent, and each project's fields, the notes module's context among them.
func (m *Module) whoami(ctx context.Context, c *kernel.Call, _ whoamiIn) (whoamiOut, error) {
	c.Entry.Payload = map[string]any{}
	who := kernel.WhoamiCaller{AgentID: c.AgentID, OrgID: c.OrgID}
	projects := agentProjects(c.Caller)
	ids := make([]string, len(projects))
	for i, p := range projects {
		ids[i] = p.ID
	}
	sections, fields, err := m.whoamiSections.Build(ctx, c.Tx, who, ids)
	if err != nil {
		return whoamiOut{}, err
	}
	for i := range projects {
		projects[i].Context = fields[projects[i].ID]["context"]
	}
	out := whoamiOut{Projects: projects}
	out.Agent, _ = sections["agent"].(agentView)
	out.Agent.Role = sections["role"]
	out.Mandates, _ = sections["mandates"].([]heldMandate)
	out.Delegates, _ = sections["delegates"].([]delegate)
	out.UnreadMessages, _ = sections["unread_messages"].(int)
	return out, nil
}
