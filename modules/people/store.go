package people

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
)

// The listings join what several owners keep: the rows of people, projects
// and agents come from core/identity, a project's open tasks from the board
// (kernel.BoardFacts), an agent's live mandates from core/mandate and its
// live keys from the credentials module (kernel.AgentKeys), so this module
// reads none of their tables (docs/architecture.md, "Table ownership").

// humanRows lists the people of org, by id.
func (m *Module) humanRows(ctx context.Context, tx bun.IDB, org string) ([]Human, error) {
	ps, err := m.identity.ListPeople(ctx, tx, org)
	out := make([]Human, 0, len(ps))
	for i := range ps {
		out = append(out, human(&ps[i]))
	}
	return out, err
}

// projectRows lists the projects of org, by id, with their open tasks;
// only project id when it is given (not_found when org has no such
// project).
func (m *Module) projectRows(ctx context.Context, tx bun.IDB, org, id string) ([]Project, error) {
	var ps []identity.Project
	if id == "" {
		var err error
		if ps, err = m.identity.ListProjects(ctx, tx, org); err != nil {
			return nil, err
		}
	} else {
		p, err := identity.ProjectInOrg(ctx, tx, id, org)
		if err != nil {
			return nil, err
		}
		ps = []identity.Project{*p}
	}
	ids := make([]string, 0, len(ps))
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	open, err := m.facts.OpenTaskCounts(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Project, 0, len(ps))
	for _, p := range ps {
		out = append(out, Project{ID: p.ID, Name: p.Name, Production: p.Production, Frozen: p.Frozen,
			CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt, OpenTasks: open[p.ID]})
	}
	return out, nil
}

// agentRows lists the agents of org by id; only agent id when it is given.
func (m *Module) agentRows(ctx context.Context, tx bun.IDB, org, id string) ([]Agent, error) {
	as, err := m.identity.ListAgents(ctx, tx, org, id)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(as))
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	mandates, err := m.mandates.LiveHeldCounts(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	keys, err := m.keys.LiveKeyCounts(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(as))
	for _, a := range as {
		var prefs map[string]any
		if len(a.Preferences) > 0 {
			if err := json.Unmarshal(a.Preferences, &prefs); err != nil {
				return nil, err
			}
		}
		out = append(out, Agent{ID: a.ID, Owner: a.Owner, Client: a.Client, Status: a.Status, LastSeen: a.LastSeen,
			CreatedAt: a.CreatedAt, RootMandateID: a.RootMandateID, Preferences: prefs, RoleID: a.RoleID,
			ReplacedBy: a.ReplacedBy, Projects: a.Projects, LiveTokens: a.LiveTokens, LiveMandates: mandates[a.ID],
			Keys: keys[a.ID], ListeningUntil: a.ListeningUntil, Online: a.Online})
	}
	return out, nil
}
