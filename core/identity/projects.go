package identity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Project is a body of work agents are registered for.
type Project struct {
	ID         string    `bun:"id" json:"id"`
	OrgID      string    `bun:"org_id" json:"org_id"`
	Name       string    `bun:"name" json:"name"`
	Production bool      `bun:"production" json:"production"`
	Frozen     bool      `bun:"frozen" json:"frozen"`
	CreatedBy  string    `bun:"created_by" json:"created_by"`
	CreatedAt  time.Time `bun:"created_at" json:"created_at"`
}

const projectCols = `id, org_id, name, production, frozen, created_by, created_at`

// AddProject adds a project to the acting owner's organization. Refusals:
// forbidden, invalid_request (id or name malformed), id_taken.
func (s *Service) AddProject(ctx context.Context, by, id, name string, production bool) (*Project, error) {
	name = strings.TrimSpace(name)
	var out *Project
	payload := map[string]any{"id": id, "name": name, "production": production}
	err := s.Act(ctx, by, Owner, "admin.project.add", payload, func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
		if !slugID.MatchString(id) {
			return errs.E(errs.InvalidRequest, "project id %q must be 1-63 characters of a-z, 0-9 and '-', starting with a letter or digit", id)
		}
		if name == "" || len([]rune(name)) > 200 {
			return errs.E(errs.InvalidRequest, "a project needs a name of 1-200 characters")
		}
		if err := idFree(ctx, tx, "projects", id, "project"); err != nil {
			return err
		}
		var pr Project
		err := tx.NewRaw(`INSERT INTO projects (id, org_id, name, production, created_by) VALUES (?, ?, ?, ?, ?) RETURNING `+projectCols,
			id, p.OrgID, name, production, p.ID).Scan(ctx, &pr)
		if err != nil {
			return translate(err, "project "+id)
		}
		e.ProjectID = id
		out = &pr
		return nil
	})
	return out, err
}

// SetProjectFlags changes project id's production and frozen flags, in
// tx; nil leaves one as it is.
func (s *Service) SetProjectFlags(ctx context.Context, tx bun.IDB, id string, production, frozen *bool) (*Project, error) {
	var p Project
	err := tx.NewRaw(`UPDATE projects SET production = coalesce(?, production), frozen = coalesce(?, frozen)
		WHERE id = ? RETURNING `+projectCols, production, frozen, id).Scan(ctx, &p)
	if err != nil {
		return nil, fmt.Errorf("identity.SetProjectFlags: %w", err)
	}
	return &p, nil
}

// ListProjects lists the projects of org, by id.
func (s *Service) ListProjects(ctx context.Context, tx bun.IDB, org string) ([]Project, error) {
	out := []Project{}
	err := tx.NewRaw(`SELECT `+projectCols+` FROM projects WHERE org_id = ? ORDER BY id`, org).Scan(ctx, &out)
	return out, err
}

// ProjectInOrg returns project id when it belongs to org; otherwise
// not_found, with the same words whether it is missing or another
// organization's.
func ProjectInOrg(ctx context.Context, tx bun.IDB, id, org string) (*Project, error) {
	p, err := LoadProject(ctx, tx, id)
	if err == nil && (p == nil || p.OrgID != org) {
		return nil, errs.E(errs.NotFound, "project %s does not exist", id)
	}
	return p, err
}
