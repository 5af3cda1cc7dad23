package notes

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

var keyRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// MaxBody is the longest note body, in characters.
const MaxBody = 20000

type note struct {
	Key        string     `bun:"key" json:"key"`
	Title      string     `bun:"title" json:"title"`
	Body       string     `bun:"body" json:"body,omitempty"`
	Pinned     bool       `bun:"pinned" json:"pinned"`
	Version    int        `bun:"version" json:"version"`
	UpdatedBy  string     `bun:"updated_by" json:"updated_by"`
	UpdatedAt  time.Time  `bun:"updated_at" json:"-"`
	ArchivedAt *time.Time `bun:"archived_at" json:"-"`
}

// domain is the row as the service hands it out; Body only withBody.
func (n note) domain(withBody bool) Note {
	v := Note{Key: n.Key, Title: n.Title, Pinned: n.Pinned, Version: n.Version, UpdatedBy: n.UpdatedBy,
		UpdatedAt: n.UpdatedAt.UTC(), ArchivedAt: n.ArchivedAt}
	if withBody {
		body := n.Body
		v.Body = &body
	}
	return v
}

// Write is one change to a note.
type Write struct {
	Project, Key, By string // By: "agent:<id>" or "human:<id>"
	Title, Body      *string
	Archive          bool
	Human            bool // people may edit pinned notes
}

// WriteNote applies w in tx (docs/specs/behavior.md §8.3) and returns the new version.
// Refusals: invalid_request (key, missing body, body too long), note_pinned
// (an agent changing a pinned note), not_found (archiving a missing note).
func WriteNote(ctx context.Context, tx bun.IDB, w Write) (int, error) {
	if !keyRe.MatchString(w.Key) {
		return 0, errs.E(errs.InvalidRequest, "note key %q must be 1-63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit", w.Key)
	}
	var cur []note
	if err := tx.NewRaw(`SELECT key, title, body, pinned, version, updated_by, updated_at, archived_at
		FROM context_notes WHERE project_id = ? AND key = ? FOR UPDATE`, w.Project, w.Key).Scan(ctx, &cur); err != nil {
		return 0, err
	}
	if len(cur) > 0 && cur[0].Pinned && !w.Human {
		return 0, errs.E(errs.NotePinned, "note %s is pinned by a person; agents may read it but not change it", w.Key)
	}
	var title, body string
	switch {
	case w.Archive:
		if len(cur) == 0 {
			return 0, errs.E(errs.NotFound, "project %s has no note %s", w.Project, w.Key)
		}
		title, body = cur[0].Title, cur[0].Body
	default:
		if w.Body == nil || strings.TrimSpace(*w.Body) == "" {
			return 0, errs.E(errs.InvalidRequest, "a note needs a body")
		}
		t := w.Key
		if len(cur) > 0 {
			t = cur[0].Title
		}
		if w.Title != nil && strings.TrimSpace(*w.Title) != "" {
			t = *w.Title
		}
		title = clip(redact.Text(strings.TrimSpace(t)), 200)
		body = redact.Text(*w.Body)
		if n := len([]rune(body)); n > MaxBody {
			return 0, errs.E(errs.InvalidRequest, "a note body is at most %d characters (this one has %d); split it into several notes", MaxBody, n)
		}
	}
	version := 1
	if len(cur) > 0 {
		version = cur[0].Version + 1
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO context_notes (project_id, key, title, body, version, updated_by, updated_at, archived_at)
		VALUES (?, ?, ?, ?, ?, ?, now(), CASE WHEN ? THEN now() END)
		ON CONFLICT (project_id, key) DO UPDATE SET title = excluded.title, body = excluded.body, version = excluded.version,
			updated_by = excluded.updated_by, updated_at = now(), archived_at = excluded.archived_at`,
		w.Project, w.Key, title, body, version, w.By, w.Archive)
	if err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO context_note_versions (project_id, key, version, title, body, archived, updated_by)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, w.Project, w.Key, version, title, body, w.Archive, w.By)
	return version, err
}

const noteCols = `key, title, body, pinned, version, updated_by, updated_at, archived_at`

// liveNotes lists a project's live notes without their bodies, pinned
// first, then by key.
func liveNotes(ctx context.Context, tx bun.IDB, project string) ([]Note, error) {
	var ns []note
	if err := tx.NewRaw(`SELECT key, title, pinned, version, updated_by, updated_at FROM context_notes
		WHERE project_id = ? AND archived_at IS NULL ORDER BY pinned DESC, key`, project).Scan(ctx, &ns); err != nil {
		return nil, err
	}
	out := make([]Note, len(ns))
	for i, n := range ns {
		out[i] = n.domain(false)
	}
	return out, nil
}

// liveNote is one live note with its body. Refusal: not_found.
func liveNote(ctx context.Context, tx bun.IDB, project, key string) (*Note, error) {
	var ns []note
	if err := tx.NewRaw(`SELECT `+noteCols+` FROM context_notes WHERE project_id = ? AND key = ? AND archived_at IS NULL`,
		project, key).Scan(ctx, &ns); err != nil {
		return nil, err
	}
	if len(ns) == 0 {
		return nil, errs.E(errs.NotFound, "project %s has no note %s", project, key)
	}
	v := ns[0].domain(true)
	return &v, nil
}

// allNotes lists a project's notes without their bodies, pinned first,
// then by key; archived ones too when archived.
func allNotes(ctx context.Context, tx bun.IDB, project string, archived bool) ([]Note, error) {
	var ns []note
	if err := tx.NewRaw(`SELECT `+noteCols+` FROM context_notes WHERE project_id = ? AND (? OR archived_at IS NULL)
		ORDER BY pinned DESC, key`, project, archived).Scan(ctx, &ns); err != nil {
		return nil, err
	}
	out := make([]Note, len(ns))
	for i, n := range ns {
		out[i] = n.domain(false)
	}
	return out, nil
}

// anyNote is one note, archived or not, with its body; nil when there is
// none.
func anyNote(ctx context.Context, tx bun.IDB, project, key string) (*Note, error) {
	var ns []note
	if err := tx.NewRaw(`SELECT `+noteCols+` FROM context_notes WHERE project_id = ? AND key = ?`,
		project, key).Scan(ctx, &ns); err != nil || len(ns) == 0 {
		return nil, err
	}
	v := ns[0].domain(true)
	return &v, nil
}

// noteVersions are a note's versions, newest first.
func noteVersions(ctx context.Context, tx bun.IDB, project, key string) ([]NoteVersion, error) {
	var vs []struct {
		ID        int64      `bun:"id"`
		Version   int        `bun:"version"`
		Title     string     `bun:"title"`
		Body      *string    `bun:"body"`
		Archived  bool       `bun:"archived"`
		UpdatedBy string     `bun:"updated_by"`
		At        time.Time  `bun:"at"`
		ErasedAt  *time.Time `bun:"erased_at"`
	}
	if err := tx.NewRaw(`SELECT id, version, title, body, archived, updated_by, at, erased_at FROM context_note_versions
		WHERE project_id = ? AND key = ? ORDER BY version DESC`, project, key).Scan(ctx, &vs); err != nil {
		return nil, err
	}
	out := make([]NoteVersion, len(vs))
	for i, v := range vs {
		out[i] = NoteVersion{ID: v.ID, Version: v.Version, Title: v.Title, Body: v.Body, Archived: v.Archived,
			UpdatedBy: v.UpdatedBy, At: v.At.UTC(), ErasedAt: v.ErasedAt}
	}
	return out, nil
}

// setPinned sets a note's pin; found is false when there is no such note.
func setPinned(ctx context.Context, tx bun.IDB, project, key string, pinned bool) (found bool, err error) {
	res, err := tx.ExecContext(ctx, `UPDATE context_notes SET pinned = ? WHERE project_id = ? AND key = ?`, pinned, project, key)
	if err != nil {
		return false, fmt.Errorf("notes: pin a note: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// versionRow is a note version about to be erased, with its organization.
type versionRow struct {
	ProjectID string  `bun:"project_id"`
	Key       string  `bun:"key"`
	Version   int     `bun:"version"`
	Body      *string `bun:"body"`
	OrgID     string  `bun:"org_id"`
}

// versionToErase locks version id if it is not erased yet; nil when there
// is no such version.
func versionToErase(ctx context.Context, tx bun.IDB, id int64) (*versionRow, error) {
	var vs []versionRow
	if err := tx.NewRaw(`SELECT v.project_id, v.key, v.version, v.body, pr.org_id FROM context_note_versions v
		JOIN projects pr ON pr.id = v.project_id WHERE v.id = ? AND v.erased_at IS NULL FOR UPDATE OF v`, id).Scan(ctx, &vs); err != nil || len(vs) == 0 {
		return nil, err
	}
	return &vs[0], nil
}

// eraseVersion drops version id's text, and the note's when v is its
// current version.
func eraseVersion(ctx context.Context, tx bun.IDB, id int64, v *versionRow) error {
	if _, err := tx.ExecContext(ctx, `UPDATE context_note_versions SET body = NULL, erased_at = now() WHERE id = ?`, id); err != nil {
		return fmt.Errorf("notes: erase a version: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE context_notes SET body = '[erased]' WHERE project_id = ? AND key = ? AND version = ?`,
		v.ProjectID, v.Key, v.Version); err != nil {
		return fmt.Errorf("notes: erase a version: %w", err)
	}
	return nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
