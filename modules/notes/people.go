package notes

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// What people do to notes (docs/specs/behavior.md §8.3). The Admin API calls these.
// People may edit pinned notes; pinning makes a note read-only for agents.

// projectOf confines a person to their organization's projects: another
// organization's project answers like a missing one.
func projectOf(ctx context.Context, tx bun.IDB, p *identity.Person, e *ledger.Entry, project string) error {
	pr, err := identity.LoadProject(ctx, tx, project)
	if err != nil {
		return err
	}
	if pr == nil || pr.OrgID != p.OrgID {
		return errs.E(errs.NotFound, "project %s does not exist", project)
	}
	e.ProjectID = project
	return nil
}

// Write writes a note as a person (approvers and owners). Refusals:
// forbidden, not_found, invalid_request.
func (m *Module) Write(ctx context.Context, by, project, key string, title, body *string) (int, error) {
	var version int
	err := m.ident.Act(ctx, by, identity.Approver, "admin.context.write",
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

// SetPinned pins or unpins a note. Refusals: forbidden, not_found.
func (m *Module) SetPinned(ctx context.Context, by, project, key string, pinned bool) error {
	return m.ident.Act(ctx, by, identity.Approver, "admin.context.pin", map[string]any{"project_id": project, "key": key, "pinned": pinned},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := projectOf(ctx, tx, p, e, project); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `UPDATE context_notes SET pinned = ? WHERE project_id = ? AND key = ?`, pinned, project, key)
			if err != nil {
				return fmt.Errorf("notes.SetPinned: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errs.E(errs.NotFound, "project %s has no note %s", project, key)
			}
			return nil
		})
}

// Erased reports an erased note version.
type Erased struct {
	ProjectID      string `json:"project_id"`
	Key            string `json:"key"`
	Version        int    `json:"version"`
	PayloadsErased int64  `json:"payloads_erased"`
}

// EraseVersion erases one version of a note (PDPA, owners only): its text
// leaves the version, the note (when it is the current version) and every
// log payload that carried it, while the chains still verify. Refusals:
// forbidden, not_found (no such unerased version in the organization).
func (m *Module) EraseVersion(ctx context.Context, by string, versionID int64) (*Erased, error) {
	var out *Erased
	err := m.ident.Act(ctx, by, identity.Owner, "admin.context.erase", map[string]any{"version_id": versionID},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			var vs []struct {
				ProjectID string  `bun:"project_id"`
				Key       string  `bun:"key"`
				Version   int     `bun:"version"`
				Body      *string `bun:"body"`
				OrgID     string  `bun:"org_id"`
			}
			if err := tx.NewRaw(`SELECT v.project_id, v.key, v.version, v.body, pr.org_id FROM context_note_versions v
				JOIN projects pr ON pr.id = v.project_id WHERE v.id = ? AND v.erased_at IS NULL FOR UPDATE OF v`, versionID).Scan(ctx, &vs); err != nil {
				return err
			}
			if len(vs) == 0 || vs[0].OrgID != p.OrgID {
				return errs.E(errs.NotFound, "note version %d does not exist", versionID)
			}
			v := vs[0]
			e.ProjectID = v.ProjectID
			if _, err := tx.ExecContext(ctx, `UPDATE context_note_versions SET body = NULL, erased_at = now() WHERE id = ?`, versionID); err != nil {
				return fmt.Errorf("notes.EraseVersion: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE context_notes SET body = '[erased]' WHERE project_id = ? AND key = ? AND version = ?`,
				v.ProjectID, v.Key, v.Version); err != nil {
				return err
			}
			out = &Erased{ProjectID: v.ProjectID, Key: v.Key, Version: v.Version}
			if v.Body != nil {
				n, err := m.log.EraseMatching(ctx, tx, v.ProjectID, []string{"pact_note", "admin.context.write"},
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
