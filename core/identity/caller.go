package identity

import (
	"context"
	"slices"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// Caller is what a tool needs to know of the agent calling it; tools load
// it once per call.
type Caller struct {
	ID, OrgID, Client string
	Projects          []string // sorted
	// rows are the rows of Projects when the gate read them (Admit).
	rows []Project
}

// In reports whether the agent is registered in project.
func (c *Caller) In(project string) bool { return slices.Contains(c.Projects, project) }

// Project is the row of one of the caller's projects as the gate read it,
// or nil when it is not one of them or the gate did not read them.
func (c *Caller) Project(id string) *Project {
	for i := range c.rows {
		if c.rows[i].ID == id {
			return &c.rows[i]
		}
	}
	return nil
}

// LoadCaller returns agent id as a Caller. The tool pipeline's gate has
// already refused an unknown agent, so a missing one is an error here.
func LoadCaller(ctx context.Context, tx bun.IDB, id string) (*Caller, error) {
	c := &Caller{}
	err := tx.NewRaw(`SELECT a.id, a.org_id, a.client,
		coalesce((SELECT array_agg(project_id ORDER BY project_id) FROM agent_projects WHERE agent_id = a.id), '{}')
		FROM agents a WHERE a.id = ?`, id).Scan(ctx, &c.ID, &c.OrgID, &c.Client, pgdialect.Array(&c.Projects))
	return c, err
}

// LoadProject returns project id, or nil when there is none.
func LoadProject(ctx context.Context, tx bun.IDB, id string) (*Project, error) {
	var ps []Project
	if err := tx.NewRaw(`SELECT `+projectCols+` FROM projects WHERE id = ?`, id).Scan(ctx, &ps); err != nil || len(ps) == 0 {
		return nil, err
	}
	return &ps[0], nil
}
