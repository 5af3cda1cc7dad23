package notes

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// The Admin API's view of project context notes (docs/specs/behavior.md §8.3, §10.6):
// people read every note, archived ones and all versions included; approvers
// write, pin, unpin and archive; owners erase a version.

// noteBody bounds note request bodies: a note is at most MaxBody characters,
// of up to four bytes each, JSON-escaped.
const noteBody = 256 << 10

// adminOp is an operation of this module: ids are notes-<verb>[-<noun>],
// the tag is "notes", and AdminOp declares the role gate with the 401 and
// 403 answers.
func adminOp(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	return kernel.AdminOp(huma.Operation{OperationID: "notes-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"notes"}, Errors: errors, MaxBodyBytes: noteBody}, min)
}

func (m *Module) registerAdmin(api huma.API) {
	huma.Register(api, adminOp(http.MethodGet, "/projects/{project_id}/context", "list-notes",
		"List a project's context notes", identity.Viewer, http.StatusNotFound), m.adminList)
	huma.Register(api, adminOp(http.MethodGet, "/projects/{project_id}/context/{key}", "get-note",
		"Read a note, archived or not, with every version", identity.Viewer, http.StatusNotFound), m.adminGet)
	huma.Register(api, adminOp(http.MethodPut, "/projects/{project_id}/context/{key}", "write-note",
		"Write a note (a new version; people may edit pinned notes)", identity.Approver,
		http.StatusBadRequest, http.StatusNotFound), m.adminWrite)
	huma.Register(api, adminOp(http.MethodPost, "/projects/{project_id}/context/{key}/pin", "pin-note",
		"Pin a note: agents may read it but not change it", identity.Approver, http.StatusNotFound), m.adminPin(true))
	huma.Register(api, adminOp(http.MethodPost, "/projects/{project_id}/context/{key}/unpin", "unpin-note",
		"Unpin a note", identity.Approver, http.StatusNotFound), m.adminPin(false))
	huma.Register(api, adminOp(http.MethodPost, "/projects/{project_id}/context/{key}/archive", "archive-note",
		"Archive a note (writing it again brings it back)", identity.Approver, http.StatusNotFound), m.adminArchive)
	huma.Register(api, adminOp(http.MethodPost, "/context-versions/{version_id}/erase", "erase-version",
		"Erase one version of a note and the log payloads that carried its text", identity.Owner,
		http.StatusNotFound), m.adminErase)
}

// Note is a project context note as people see it.
type Note struct {
	Key        string     `json:"key"`
	Title      string     `json:"title"`
	Body       *string    `json:"body,omitempty" doc:"Only when one note is read"`
	Pinned     bool       `json:"pinned"`
	Version    int        `json:"version"`
	UpdatedBy  string     `json:"updated_by" example:"human:ana" doc:"human:<id> or agent:<id>"`
	UpdatedAt  time.Time  `json:"updated_at"`
	ArchivedAt *time.Time `json:"archived_at"`
}

// NoteVersion is one version of a note.
type NoteVersion struct {
	ID        int64      `json:"id" doc:"Erase it with POST /context-versions/{id}/erase"`
	Version   int        `json:"version"`
	Title     string     `json:"title"`
	Body      *string    `json:"body" doc:"null once erased"`
	Archived  bool       `json:"archived"`
	UpdatedBy string     `json:"updated_by"`
	At        time.Time  `json:"at"`
	ErasedAt  *time.Time `json:"erased_at"`
}

// notePath names a project of the caller's organization and one of its
// notes.
type notePath struct {
	ProjectID string `path:"project_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Key       string `path:"key" pattern:"^[a-z0-9][a-z0-9._-]{0,62}$" doc:"1-63 of a-z, 0-9, '.', '_', '-'"`
}

type listIn struct {
	ProjectID string `path:"project_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Archived  bool   `query:"archived" doc:"true (or 1) lists archived notes too"`
}

type listOut struct {
	Body struct {
		Notes []Note `json:"notes" nullable:"false" doc:"Pinned first, then by key"`
	}
}

type getOut struct {
	Body struct {
		Note     Note          `json:"note"`
		Versions []NoteVersion `json:"versions" nullable:"false" doc:"Newest first"`
	}
}

type writeIn struct {
	ProjectID string `path:"project_id" pattern:"^[a-z0-9][a-z0-9-]{0,62}$"`
	Key       string `path:"key" pattern:"^[a-z0-9][a-z0-9._-]{0,62}$" doc:"1-63 of a-z, 0-9, '.', '_', '-'"`
	Body      struct {
		Title *string `json:"title,omitempty" maxLength:"1000" doc:"Default: the current title, or the key"`
		Body  string  `json:"body" maxLength:"20000" doc:"At most 20,000 characters; secrets are redacted"`
	}
}

// Written reports a write or an archive.
type Written struct {
	OK        bool   `json:"ok"`
	ProjectID string `json:"project_id"`
	Key       string `json:"key"`
	Version   int    `json:"version"`
	Archived  bool   `json:"archived"`
}

type writtenOut struct{ Body Written }

type pinOut struct {
	Body struct {
		ProjectID string `json:"project_id"`
		Key       string `json:"key"`
		Pinned    bool   `json:"pinned"`
	}
}

type eraseIn struct {
	VersionID int64 `path:"version_id" minimum:"1" doc:"A version's id (from GET …/context/{key})"`
}

type erasedOut struct{ Body Erased }

// readableProject confines a read to the person's organization: another
// organization's project answers like a missing one.
func readableProject(ctx context.Context, tx bun.IDB, p *identity.Person, project string) error {
	pr, err := identity.LoadProject(ctx, tx, project)
	if err != nil {
		return err
	}
	if pr == nil || pr.OrgID != p.OrgID {
		return errs.E(errs.NotFound, "project %s does not exist", project)
	}
	return nil
}

const noteCols = `key, title, body, pinned, version, updated_by, updated_at, archived_at`

func (n note) admin(withBody bool) Note {
	v := Note{Key: n.Key, Title: n.Title, Pinned: n.Pinned, Version: n.Version, UpdatedBy: n.UpdatedBy,
		UpdatedAt: n.UpdatedAt.UTC(), ArchivedAt: n.ArchivedAt}
	if withBody {
		body := n.Body
		v.Body = &body
	}
	return v
}

func (m *Module) adminList(ctx context.Context, in *listIn) (*listOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	if err := readableProject(ctx, m.db, p, in.ProjectID); err != nil {
		return nil, err
	}
	var ns []note
	if err := m.db.NewRaw(`SELECT `+noteCols+` FROM context_notes WHERE project_id = ? AND (? OR archived_at IS NULL)
		ORDER BY pinned DESC, key`, in.ProjectID, in.Archived).Scan(ctx, &ns); err != nil {
		return nil, err
	}
	out := &listOut{}
	out.Body.Notes = make([]Note, len(ns))
	for i, n := range ns {
		out.Body.Notes[i] = n.admin(false)
	}
	return out, nil
}

func (m *Module) adminGet(ctx context.Context, in *notePath) (*getOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	if err := readableProject(ctx, m.db, p, in.ProjectID); err != nil {
		return nil, err
	}
	var ns []note
	if err := m.db.NewRaw(`SELECT `+noteCols+` FROM context_notes WHERE project_id = ? AND key = ?`,
		in.ProjectID, in.Key).Scan(ctx, &ns); err != nil {
		return nil, err
	}
	if len(ns) == 0 {
		return nil, errs.E(errs.NotFound, "project %s has no note %s", in.ProjectID, in.Key)
	}
	out := &getOut{}
	out.Body.Note = ns[0].admin(true)
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
	if err := m.db.NewRaw(`SELECT id, version, title, body, archived, updated_by, at, erased_at FROM context_note_versions
		WHERE project_id = ? AND key = ? ORDER BY version DESC`, in.ProjectID, in.Key).Scan(ctx, &vs); err != nil {
		return nil, err
	}
	out.Body.Versions = make([]NoteVersion, len(vs))
	for i, v := range vs {
		out.Body.Versions[i] = NoteVersion{ID: v.ID, Version: v.Version, Title: v.Title, Body: v.Body, Archived: v.Archived,
			UpdatedBy: v.UpdatedBy, At: v.At.UTC(), ErasedAt: v.ErasedAt}
	}
	return out, nil
}

func (m *Module) adminWrite(ctx context.Context, in *writeIn) (*writtenOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	body := in.Body.Body
	version, err := m.Write(ctx, p.ID, in.ProjectID, in.Key, in.Body.Title, &body)
	if err != nil {
		return nil, err
	}
	return &writtenOut{Body: Written{OK: true, ProjectID: in.ProjectID, Key: in.Key, Version: version}}, nil
}

func (m *Module) adminPin(pinned bool) func(context.Context, *notePath) (*pinOut, error) {
	return func(ctx context.Context, in *notePath) (*pinOut, error) {
		p, err := kernel.SignedIn(ctx)
		if err != nil {
			return nil, err
		}
		if err := m.SetPinned(ctx, p.ID, in.ProjectID, in.Key, pinned); err != nil {
			return nil, err
		}
		out := &pinOut{}
		out.Body.ProjectID, out.Body.Key, out.Body.Pinned = in.ProjectID, in.Key, pinned
		return out, nil
	}
}

func (m *Module) adminArchive(ctx context.Context, in *notePath) (*writtenOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	version, err := m.Archive(ctx, p.ID, in.ProjectID, in.Key)
	if err != nil {
		return nil, err
	}
	return &writtenOut{Body: Written{OK: true, ProjectID: in.ProjectID, Key: in.Key, Version: version, Archived: true}}, nil
}

func (m *Module) adminErase(ctx context.Context, in *eraseIn) (*erasedOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	e, err := m.EraseVersion(ctx, p.ID, in.VersionID)
	if err != nil {
		return nil, err
	}
	return &erasedOut{Body: *e}, nil
}

// Archive archives a note as a person (approvers and owners): a new version
// keeps its title and body, and it leaves the lists until it is written
// again. Refusals: forbidden, not_found (project or note).
func (m *Module) Archive(ctx context.Context, by, project, key string) (int, error) {
	var version int
	err := m.ident.Act(ctx, by, identity.Approver, "admin.context.archive", map[string]any{"project_id": project, "key": key},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := projectOf(ctx, tx, p, e, project); err != nil {
				return err
			}
			var err error
			version, err = WriteNote(ctx, tx, Write{Project: project, Key: key, By: "human:" + p.ID, Archive: true, Human: true})
			return err
		})
	return version, err
}
