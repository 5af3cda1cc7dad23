package mandates

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/mandate"
)

// RevokeImpact is the dry run of revoking a mandate of the person's
// organization (docs/specs/behavior.md §5.6): the live mandates under it, the open
// tasks hanging on it or on them, and the agents that would lose authority
// (its holder included). It reads only. Refusals: not_found (missing,
// malformed or another organization's id).
func (m *Module) RevokeImpact(ctx context.Context, p *identity.Person, id string) (*Impact, error) {
	md, err := m.personMandate(ctx, m.db, p, id)
	if err != nil {
		return nil, err
	}
	var live []struct {
		ID     string `bun:"id"`
		Holder string `bun:"holder"`
		Below  int    `bun:"below"`
	}
	if err := m.db.NewRaw(`WITH RECURSIVE sub AS (
			SELECT id, holder, 0 AS below FROM mandates WHERE id = ? AND revoked_at IS NULL
			UNION ALL
			SELECT c.id, c.holder, s.below + 1 FROM mandates c JOIN sub s ON c.parent_id = s.id
			WHERE c.revoked_at IS NULL AND s.below <= ?)
		SELECT id::text AS id, holder, below FROM sub ORDER BY below, id`, md.ID.String(), mandate.MaxDepth).Scan(ctx, &live); err != nil {
		return nil, err
	}
	out := &Impact{MandateID: md.ID.String(), Descendants: []ImpactMandate{}, Tasks: []ImpactTask{}}
	agents := map[string]bool{md.Holder: true}
	ids := make([]string, 0, len(live))
	for _, l := range live {
		ids = append(ids, l.ID)
		agents[l.Holder] = true
		if l.Below > 0 {
			out.Descendants = append(out.Descendants, ImpactMandate{ID: l.ID, Holder: l.Holder, Depth: l.Below})
		}
	}
	tasks, err := m.reports.Tasks().OpenTasksUnder(ctx, m.db, ids)
	if err != nil {
		return nil, fmt.Errorf("open tasks under mandate %s: %w", md.ID, err)
	}
	for _, t := range tasks {
		out.Tasks = append(out.Tasks, ImpactTask(t))
	}
	for a := range agents {
		out.Agents = append(out.Agents, a)
	}
	sort.Strings(out.Agents)
	return out, nil
}

// listMandates returns the mandates held by org's agents — only the live
// ones (unrevoked, unexpired) unless all — by depth, then age, with their
// usage and the task each was delegated for.
func (m *Module) listMandates(ctx context.Context, tx bun.IDB, org string, all bool) ([]MandateView, error) {
	var rows []struct {
		ID              string          `bun:"id"`
		ParentID        *string         `bun:"parent_id"`
		IssuerKind      string          `bun:"issuer_kind"`
		Issuer          string          `bun:"issuer"`
		Holder          string          `bun:"holder"`
		Scope           []string        `bun:"scope,array"`
		Limits          json.RawMessage `bun:"limits,type:jsonb"`
		DelegationsLeft int             `bun:"delegations_left"`
		Depth           int             `bun:"depth"`
		ExpiresAt       time.Time       `bun:"expires_at"`
		RevokedAt       *time.Time      `bun:"revoked_at"`
		CreatedAt       time.Time       `bun:"created_at"`
		Format          string          `bun:"format"`
		ExportedAs      *string         `bun:"exported_as"`
		ExternalID      *string         `bun:"external_id"`
		IssuerPrincipal *string         `bun:"issuer_principal"`
		Usage           json.RawMessage `bun:"usage,type:jsonb"`
	}
	err := tx.NewRaw(`SELECT m.id::text AS id, m.parent_id::text AS parent_id, m.issuer_kind, m.issuer, m.holder, m.scope,
			m.limits, m.delegations_left, m.depth, m.expires_at, m.revoked_at, m.created_at, m.format, m.exported_as,
			m.external_id, m.issuer_principal,
			coalesce((SELECT jsonb_object_agg(u.limit_key, u.used) FROM limit_usage u WHERE u.mandate_id = m.id), '{}') AS usage
		FROM mandates m JOIN agents a ON a.id = m.holder
		WHERE a.org_id = ? AND (? OR (m.revoked_at IS NULL AND m.expires_at > now()))
		ORDER BY m.depth, m.created_at, m.id`, org, all).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	published, err := m.reports.Credentials().RevocationsPublished(ctx, tx, ids)
	if err != nil {
		return nil, fmt.Errorf("published revocations of %d mandates: %w", len(ids), err)
	}
	tasks, err := m.reports.Tasks().DelegatedFor(ctx, tx, ids)
	if err != nil {
		return nil, fmt.Errorf("tasks of %d mandates: %w", len(ids), err)
	}
	out := make([]MandateView, len(rows))
	for i, r := range rows {
		v := MandateView{ID: r.ID, ParentID: r.ParentID, IssuerKind: r.IssuerKind, Issuer: r.Issuer, Holder: r.Holder,
			Scope: r.Scope, DelegationsLeft: r.DelegationsLeft, Depth: r.Depth, ExpiresAt: r.ExpiresAt.UTC(),
			CreatedAt: r.CreatedAt.UTC(), Format: r.Format, ExportedAs: r.ExportedAs, ExternalID: r.ExternalID,
			IssuerPrincipal: r.IssuerPrincipal, RevocationPublished: published[r.ID], Limits: map[string]float64{}, Usage: map[string]float64{}}
		if r.RevokedAt != nil {
			t := r.RevokedAt.UTC()
			v.RevokedAt = &t
		}
		if err := json.Unmarshal(r.Limits, &v.Limits); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(r.Usage, &v.Usage); err != nil {
			return nil, err
		}
		if t, ok := tasks[r.ID]; ok {
			v.Task = &MandateTask{ID: t.ID, Title: t.Title, Status: t.Status}
		}
		if v.Scope == nil {
			v.Scope = []string{}
		}
		out[i] = v
	}
	return out, nil
}
