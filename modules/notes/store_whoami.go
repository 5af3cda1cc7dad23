package notes

import (
	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
)

// liveNoteRefs is the pipelined step that reads the live notes of every
// project of projectIDs, pinned first then by key, into refs (which holds
// an empty list for each).
func liveNoteRefs(projectIDs []string, refs map[string][]noteRef) db.Step {
	return db.Step{SQL: `SELECT project_id, key, title FROM context_notes
		WHERE project_id = ANY($1) AND archived_at IS NULL ORDER BY project_id, pinned DESC, key`,
		Args: []any{projectIDs}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
			var project string
			var r noteRef
			_, err := pgx.ForEachRow(rows, []any{&project, &r.Key, &r.Title}, func() error {
				refs[project] = append(refs[project], r)
				return nil
			})
			return err
		}}
}
