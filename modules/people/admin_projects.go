package people

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

type projectsOut struct {
	Body struct {
		Projects []Project `json:"projects" nullable:"false"`
	}
}

type projectOut struct{ Body Project }

type createProjectIn struct {
	Body struct {
		ID         string `json:"id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$" doc:"Global id: 1-63 of a-z, 0-9, '-'"`
		Name       string `json:"name" minLength:"1" maxLength:"200"`
		Production bool   `json:"production,omitempty"`
	}
}

type updateProjectIn struct {
	ProjectID string `path:"project_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Body      struct {
		Production *bool `json:"production,omitempty"`
		Frozen     *bool `json:"frozen,omitempty"`
	}
}

func (m *Module) registerProjects(api huma.API) {
	huma.Register(api, op(http.MethodGet, "/projects", "list-projects", "List the organization's projects", identity.Viewer), m.listProjects)
	huma.Register(api, op(http.MethodPost, "/projects", "create-project", "Add a project", identity.Owner,
		http.StatusBadRequest, http.StatusConflict), m.createProject)
	huma.Register(api, op(http.MethodPatch, "/projects/{project_id}", "update-project",
		"Mark a project production or frozen", identity.Owner,
		http.StatusBadRequest, http.StatusNotFound), m.updateProject)
}

func (m *Module) listProjects(ctx context.Context, _ *struct{}) (*projectsOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &projectsOut{}
	out.Body.Projects, err = m.svc.Projects(ctx, p)
	return out, err
}

func (m *Module) createProject(ctx context.Context, in *createProjectIn) (*projectOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	pr, err := m.svc.AddProject(ctx, p.ID, in.Body.ID, in.Body.Name, in.Body.Production)
	if err != nil {
		return nil, err
	}
	return &projectOut{Body: Project{ID: pr.ID, Name: pr.Name, Production: pr.Production, Frozen: pr.Frozen,
		CreatedBy: pr.CreatedBy, CreatedAt: pr.CreatedAt}}, nil
}

func (m *Module) updateProject(ctx context.Context, in *updateProjectIn) (*projectOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	_, err = m.svc.SetProjectFlags(ctx, p.ID, in.ProjectID,
		ProjectFlags{Production: in.Body.Production, Frozen: in.Body.Frozen})
	if err != nil {
		return nil, err
	}
	pr, err := m.svc.Project(ctx, p, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &projectOut{Body: *pr}, nil
}
