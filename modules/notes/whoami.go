package notes

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
)

// noteRef is a note as pact_whoami lists it under each project.
type noteRef struct {
	Key   string `bun:"key" json:"key"`
	Title string `bun:"title" json:"title"`
}

// addWhoami registers each project's "context" in pact_whoami's answer:
// the notes are this module's table, so it reads them (docs/architecture.md,
// "Table ownership").
func (m *Module) addWhoami(h *kernel.Host) error {
	return h.WhoamiProjectSection("context", m.projectContext)
}

// projectContext lists the live notes of every project asked for, pinned
// first then by key, in one query; a project without notes has an empty
// list, never null.
func (m *Module) projectContext(ctx context.Context, tx bun.IDB, _ kernel.WhoamiCaller, projectIDs []string) (map[string]any, error) {
	var rows []struct {
		ProjectID string `bun:"project_id"`
		noteRef
	}
	if err := m.db.Fetch(ctx, tx, &rows, `SELECT project_id, key, title FROM context_notes
		WHERE project_id = ANY($1) AND archived_at IS NULL ORDER BY project_id, pinned DESC, key`,
		projectIDs); err != nil {
		return nil, fmt.Errorf("project notes: %w", err)
	}
	refs := make(map[string][]noteRef, len(projectIDs))
	for _, p := range projectIDs {
		refs[p] = []noteRef{}
	}
	for _, r := range rows {
		refs[r.ProjectID] = append(refs[r.ProjectID], r.noteRef)
	}
	out := make(map[string]any, len(refs))
	for p, rs := range refs {
		out[p] = rs
	}
	return out, nil
}
