package notes

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
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

func (m *Module) adminList(ctx context.Context, in *listIn) (*listOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	ns, err := m.svc.List(ctx, p, in.ProjectID, in.Archived)
	if err != nil {
		return nil, err
	}
	out := &listOut{}
	out.Body.Notes = ns
	return out, nil
}

func (m *Module) adminGet(ctx context.Context, in *notePath) (*getOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	n, vs, err := m.svc.Get(ctx, p, in.ProjectID, in.Key)
	if err != nil {
		return nil, err
	}
	out := &getOut{}
	out.Body.Note, out.Body.Versions = *n, vs
	return out, nil
}

func (m *Module) adminWrite(ctx context.Context, in *writeIn) (*writtenOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	body := in.Body.Body
	version, err := m.svc.Write(ctx, p.ID, in.ProjectID, in.Key, in.Body.Title, &body)
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
		if err := m.svc.SetPinned(ctx, p.ID, in.ProjectID, in.Key, pinned); err != nil {
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
	version, err := m.svc.Archive(ctx, p.ID, in.ProjectID, in.Key)
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
	e, err := m.svc.EraseVersion(ctx, p.ID, in.VersionID)
	if err != nil {
		return nil, err
	}
	return &erasedOut{Body: *e}, nil
}
