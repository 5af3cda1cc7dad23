package mandates

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
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
	live, err := m.mandates.LiveSubtree(ctx, m.db, md.ID.String())
	if err != nil {
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
	tasks, err := m.tasks().OpenTasksUnder(ctx, m.db, ids)
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
	rows, err := m.mandates.ListHeldIn(ctx, tx, org, all)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	published, err := m.creds().RevocationsPublished(ctx, tx, ids)
	if err != nil {
		return nil, fmt.Errorf("published revocations of %d mandates: %w", len(ids), err)
	}
	tasks, err := m.tasks().DelegatedFor(ctx, tx, ids)
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
