package notes

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Service is where every rule about notes is decided (docs/specs/behavior.md
// §8.3): pact_note, the pact:// resources (through pact_note) and the Admin
// operations are adapters over its methods, and its store holds the SQL.
type Service struct {
	db       *db.DB
	log      *ledger.Log
	ident    *identity.Service
	mandates *mandate.Service
}

// Note is a project context note. Body is nil in a list.
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

// Erased reports an erased note version.
type Erased struct {
	ProjectID      string `json:"project_id"`
	Key            string `json:"key"`
	Version        int    `json:"version"`
	PayloadsErased int64  `json:"payloads_erased"`
}

// AgentRequest is what an agent asks of a project's notes: the list (no
// Key), one note (Key), a write (Body) or an archive.
type AgentRequest struct {
	ProjectID, MandateID string
	Key                  string
	Title, Body          *string
	Archive              bool
}

// Writing reports whether the request changes a note.
func (r AgentRequest) Writing() bool { return r.Body != nil || r.Archive }

// AgentAnswer is what the service answers an agent: Notes for the list,
// Note for one note, Version after a write.
type AgentAnswer struct {
	Notes   []Note
	Note    *Note
	Version int
}

// ForAgent reads or writes project notes as agent `who`, in the call's
// transaction, under the mandate the request names: reading needs task.read
// on the project and writing context.write; a frozen project's notes are
// read-only, a production project's closed to Runners, and a pinned note is
// read-only for agents. Refusals, in this order: the mandate's
// (Verify), project_mismatch (not the agent's project), scope_exceeded,
// project_frozen, project_mismatch (a Runner in production),
// invalid_request (a write without a key, or WriteNote's), note_pinned,
// not_found.
func (s *Service) ForAgent(ctx context.Context, tx *db.Tx, who *identity.Caller, e *ledger.Entry, r AgentRequest) (AgentAnswer, error) {
	chain, err := s.mandates.Verify(ctx, tx, r.MandateID, who.ID)
	if err != nil {
		return AgentAnswer{}, err
	}
	e.MandateChain = chain.IDs()
	if !who.In(r.ProjectID) {
		return AgentAnswer{}, errs.E(errs.ProjectMismatch, "agent %s is not registered in project %s", who.ID, r.ProjectID)
	}
	e.ProjectID = r.ProjectID
	needed := mandate.BoardScope("task.read", r.ProjectID)
	if r.Writing() {
		needed = mandate.BoardScope("context.write", r.ProjectID)
	}
	if leaf := chain.Leaf(); !mandate.AnyCovers(leaf.Scope, needed) {
		return AgentAnswer{}, errs.Mandate(errs.ScopeExceeded, leaf.ID.String(), "mandate %s does not cover %s", leaf.ID, needed)
	}
	if !r.Writing() {
		if r.Key == "" {
			ns, err := liveNotes(ctx, tx, r.ProjectID)
			return AgentAnswer{Notes: ns}, err
		}
		n, err := liveNote(ctx, tx, r.ProjectID, r.Key)
		return AgentAnswer{Note: n}, err
	}
	p, err := identity.LoadProject(ctx, tx, r.ProjectID)
	if err != nil {
		return AgentAnswer{}, err
	}
	if p.Frozen {
		return AgentAnswer{}, errs.E(errs.ProjectFrozen, "project %s is frozen by a person; its notes can be read but not changed", p.ID)
	}
	if who.Client == "runner" && p.Production {
		return AgentAnswer{}, errs.E(errs.ProjectMismatch, "project %s is production; a Runner may not touch it — a human opens Claude Code", p.ID)
	}
	if r.Key == "" {
		return AgentAnswer{}, errs.E(errs.InvalidRequest, "writing a note needs a key")
	}
	v, err := WriteNote(ctx, tx, Write{Project: p.ID, Key: r.Key, By: "agent:" + who.ID, Title: r.Title, Body: r.Body, Archive: r.Archive})
	return AgentAnswer{Version: v}, err
}

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

// List is a project's notes as person p reads them: pinned first, then by
// key; archived ones too when asked. Refusal: not_found (the project is no
// project of p's organization).
func (s *Service) List(ctx context.Context, p *identity.Person, project string, archived bool) ([]Note, error) {
	if err := readableProject(ctx, s.db, p, project); err != nil {
		return nil, err
	}
	return allNotes(ctx, s.db, project, archived)
}

// Get is one note, archived or not, with every version, newest first, as
// person p reads it. Refusal: not_found (project or note).
func (s *Service) Get(ctx context.Context, p *identity.Person, project, key string) (*Note, []NoteVersion, error) {
	if err := readableProject(ctx, s.db, p, project); err != nil {
		return nil, nil, err
	}
	n, err := anyNote(ctx, s.db, project, key)
	if err != nil || n == nil {
		return nil, nil, cmpErr(err, errs.E(errs.NotFound, "project %s has no note %s", project, key))
	}
	vs, err := noteVersions(ctx, s.db, project, key)
	return n, vs, err
}

// cmpErr is err, or else missing.
func cmpErr(err error, missing *errs.Error) error {
	if err != nil {
		return err
	}
	return missing
}

// projectOf confines a person to their organization's projects: another
// organization's project answers like a missing one.
func projectOf(ctx context.Context, tx bun.IDB, p *identity.Person, e *ledger.Entry, project string) error {
	if err := readableProject(ctx, tx, p, project); err != nil {
		return err
	}
	e.ProjectID = project
	return nil
}

// Write writes a note as a person (approvers and owners; people may edit
// pinned notes). Refusals: forbidden, not_found, invalid_request.
func (s *Service) Write(ctx context.Context, by, project, key string, title, body *string) (int, error) {
	var version int
	err := s.ident.Act(ctx, by, identity.Approver, "admin.context.write",
		map[string]any{"project_id": project, "key": key, "title": title, "body": body},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := projectOf(ctx, tx, p, e, project); err != nil {
				return err
			}
			var err error
			version, err = WriteNote(ctx, tx, Write{Project: project, Key: key, By: "human:" + p.ID, Title: title, Body: body, Human: true})
			return err
		})
	return version, err
}

// SetPinned pins or unpins a note: a pinned note is read-only for agents.
// Refusals: forbidden, not_found.
func (s *Service) SetPinned(ctx context.Context, by, project, key string, pinned bool) error {
	return s.ident.Act(ctx, by, identity.Approver, "admin.context.pin", map[string]any{"project_id": project, "key": key, "pinned": pinned},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := projectOf(ctx, tx, p, e, project); err != nil {
				return err
			}
			found, err := setPinned(ctx, tx, project, key, pinned)
			if err == nil && !found {
				err = errs.E(errs.NotFound, "project %s has no note %s", project, key)
			}
			return err
		})
}

// Archive archives a note as a person (approvers and owners): a new version
// keeps its title and body, and it leaves the lists until it is written
// again. Refusals: forbidden, not_found (project or note).
func (s *Service) Archive(ctx context.Context, by, project, key string) (int, error) {
	var version int
	err := s.ident.Act(ctx, by, identity.Approver, "admin.context.archive", map[string]any{"project_id": project, "key": key},
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

// EraseVersion erases one version of a note (PDPA, owners only): its text
// leaves the version, the note (when it is the current version) and every
// log payload that carried it, while the chains still verify. Refusals:
// forbidden, not_found (no such unerased version in the organization).
func (s *Service) EraseVersion(ctx context.Context, by string, versionID int64) (*Erased, error) {
	var out *Erased
	err := s.ident.Act(ctx, by, identity.Owner, "admin.context.erase", map[string]any{"version_id": versionID},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			v, err := versionToErase(ctx, tx, versionID)
			if err != nil {
				return err
			}
			if v == nil || v.OrgID != p.OrgID {
				return errs.E(errs.NotFound, "note version %d does not exist", versionID)
			}
			e.ProjectID = v.ProjectID
			if err := eraseVersion(ctx, tx, versionID, v); err != nil {
				return err
			}
			out = &Erased{ProjectID: v.ProjectID, Key: v.Key, Version: v.Version}
			if v.Body != nil {
				n, err := s.log.EraseMatching(ctx, tx, v.ProjectID, []string{"pact_note", "admin.context.write"},
					map[string]string{"key": v.Key, "body": *v.Body})
				if err != nil {
					return err
				}
				out.PayloadsErased = n
			}
			return nil
		})
	return out, err
}
