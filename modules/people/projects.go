package people

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Project is a project of the caller's organization.
type Project struct {
	ID         string    `json:"id" example:"web"`
	Name       string    `json:"name"`
	Production bool      `json:"production" doc:"Runners never work on production projects"`
	Frozen     bool      `json:"frozen" doc:"Agents' calls on a frozen project are refused"`
	CreatedBy  string    `json:"created_by"`
	CreatedAt  time.Time `json:"created_at"`
	OpenTasks  int       `json:"open_tasks" doc:"Tasks submitted, working, waiting for input or for approval"`
}

// Projects lists the projects of person p's organization, by id, with
// their open tasks.
func (s *Service) Projects(ctx context.Context, p *identity.Person) ([]Project, error) {
	return s.projectRows(ctx, s.db, p.OrgID, "")
}

// Project is project id of person p's organization, with its open tasks.
// Refusal: not_found.
func (s *Service) Project(ctx context.Context, p *identity.Person, id string) (*Project, error) {
	ps, err := s.projectRows(ctx, s.db, p.OrgID, id)
	if err != nil {
		return nil, err
	}
	return &ps[0], nil
}

// projectRows lists the projects of org, by id, with their open tasks
// (the board's, asked through seams.BoardFactsSeam); only project id when it
// is given (not_found when org has no such project).
func (s *Service) projectRows(ctx context.Context, tx bun.IDB, org, id string) ([]Project, error) {
	var ps []identity.Project
	if id == "" {
		var err error
		if ps, err = s.ident.ListProjects(ctx, tx, org); err != nil {
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
	facts, err := s.facts()
	if err != nil {
		return nil, err
	}
	open, err := facts.OpenTaskCounts(ctx, tx, ids)
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

// AddProject adds a project to the acting owner's organization
// (identity.AddProject decides, checks and logs).
func (s *Service) AddProject(ctx context.Context, by, id, name string, production bool) (*identity.Project, error) {
	return s.ident.AddProject(ctx, by, id, name, production)
}

// ProjectFlags are the flags SetProjectFlags changes; nil leaves one as it is.
type ProjectFlags struct {
	Production *bool `json:"production,omitempty"`
	Frozen     *bool `json:"frozen,omitempty"`
}

// SetProjectFlags marks a project production or frozen (owners only).
// Refusals: forbidden, not_found, invalid_request (no flag given).
func (s *Service) SetProjectFlags(ctx context.Context, by, id string, f ProjectFlags) (*identity.Project, error) {
	var out *identity.Project
	err := s.ident.Act(ctx, by, identity.Owner, "admin.project.flags", map[string]any{"project_id": id, "flags": f},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if f.Production == nil && f.Frozen == nil {
				return errs.E(errs.InvalidRequest, "name a flag to change: --production true|false or --frozen true|false")
			}
			pr, err := identity.ProjectInOrg(ctx, tx, id, p.OrgID)
			if err != nil {
				return err
			}
			e.ProjectID = id
			out, err = s.ident.SetProjectFlags(ctx, tx, pr.ID, f.Production, f.Frozen)
			return err
		})
	return out, err
}
