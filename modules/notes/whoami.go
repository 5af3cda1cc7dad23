package notes

import (
	"github.com/pactboard/pact/core/db"
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
func (m *Module) projectContext(_ kernel.WhoamiCaller, projectIDs []string) (db.Step, func() (map[string]any, error)) {
	refs := make(map[string][]noteRef, len(projectIDs))
	for _, p := range projectIDs {
		refs[p] = []noteRef{}
	}
	read := liveNoteRefs(projectIDs, refs)
	return read, func() (map[string]any, error) {
		out := make(map[string]any, len(refs))
		for p, rs := range refs {
			out[p] = rs
		}
		return out, nil
	}
}
