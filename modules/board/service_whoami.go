package board

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/kernel"
)

// The board's own sections of pact_whoami (kernel.Whoami), which its tool
// (tools_whoami.go) assembles with the other modules'.

// whoamiSectionNames are the sections whoamiOwn builds.
var whoamiSectionNames = []string{"agent", "mandates", "delegates", "unread_messages"}

// whoamiOwn reads the board's sections in one statement: the caller (its
// role is the people module's section), its live mandates, roots first,
// the active agents sharing a project with it, and how many messages to it
// are unread.
func (s *Service) whoamiOwn(c kernel.WhoamiCaller) (db.Step, func() (map[string]any, error)) {
	var row whoamiRow
	return whoamiOwnStep(c.AgentID, &row), func() (map[string]any, error) {
		return whoamiOwnValues(c, row.Agent, row.Mandates, row.Delegates, row.Unread)
	}
}

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
