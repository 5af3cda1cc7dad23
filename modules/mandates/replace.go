package mandates

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// ReplaceInput describes the root mandate that replaces a live one. Limits
// and Delegations default to the old root's; Days to 30.
type ReplaceInput struct {
	Scope       []string
	Limits      map[string]float64 // nil keeps the old root's
	Delegations *int               // nil keeps the old root's
	Days        float64
	// Revoke revokes the old root and everything under it (its open tasks
	// are stopped by the revoke hooks); otherwise it runs until it expires.
	Revoke bool
}

// Replaced reports a replaced root mandate.
type Replaced struct {
	MandateID          uuid.UUID `json:"mandate_id"`
	Replaced           uuid.UUID `json:"replaced"`
	Revoked            bool      `json:"revoked"`
	DescendantMandates int       `json:"descendant_mandates"`
	// TasksStopped are the open tasks revoking the old root canceled.
	TasksStopped []string `json:"-"`
}

// ReplaceMandate issues a new root mandate to the holder of a live root
// mandate of the acting approver's organization and makes it the agent's
// root_mandate_id; with in.Revoke the old root's subtree is revoked in the
// same transaction. Refusals: forbidden; not_found (missing, malformed or
// another organization's id); invalid_request (not a live root, scope,
// limits, delegations or term malformed); project_mismatch (a scope outside
// the holder's projects).
func (m *Module) ReplaceMandate(ctx context.Context, by, id string, in ReplaceInput) (*Replaced, error) {
	var out *Replaced
	payload := map[string]any{"mandate_id": id, "scope": in.Scope, "limits": in.Limits, "delegations": in.Delegations,
		"days": in.Days, "revoke": in.Revoke}
	err := m.ident.Act(ctx, by, identity.Approver, "admin.mandate.replace", payload, func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
		old, err := m.personMandate(ctx, tx, p, id)
		if err != nil {
			return err
		}
		a, err := m.ident.GetAgent(ctx, tx, old.Holder, p.OrgID)
		if err != nil {
			return err
		}
		// Lock the old root and read it again, so two replacements (or a
		// replacement and a revocation) of one root cannot both see it live.
		if err := m.mandates.Lock(ctx, tx, old.ID.String()); err != nil {
			return err
		}
		if old, err = m.mandates.Get(ctx, tx, id); err != nil {
			return err
		}
		if old.ParentID != nil || old.RevokedAt != nil || !old.ExpiresAt.After(m.ident.Now()) {
			return errs.E(errs.InvalidRequest, "mandate %s is not a live root mandate", id)
		}
		if len(in.Scope) == 0 {
			return errs.E(errs.InvalidRequest, "a mandate needs a scope (--scope action@project:p,…)")
		}
		ends, err := m.ident.Term("--days", in.Days)
		if err != nil {
			return err
		}
		if err := identity.ScopesWithin(in.Scope, a.Projects); err != nil {
			return err
		}
		limits, delegations := old.Limits, old.DelegationsLeft
		if in.Limits != nil {
			limits = in.Limits
		}
		if in.Delegations != nil {
			delegations = *in.Delegations
		}
		md, err := m.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: a.ID, Scope: in.Scope,
			Limits: limits, Delegations: delegations, ExpiresAt: ends})
		if err != nil {
			return err
		}
		roots, err := m.roots()
		if err != nil {
			return err
		}
		if err := roots.SetRootMandate(ctx, tx, a.ID, md.ID); err != nil {
			return err
		}
		out = &Replaced{MandateID: md.ID, Replaced: old.ID}
		if in.Revoke {
			ev, err := m.mandates.RevokeSubtree(ctx, tx, old.ID)
			if err != nil {
				return err
			}
			out.Revoked, out.DescendantMandates, out.TasksStopped = true, len(ev.Subtree)-1, ev.TasksStopped
		}
		e.AgentID, e.MandateChain = a.ID, []uuid.UUID{md.ID}
		e.Payload = map[string]any{"mandate_id": md.ID.String(), "replaced": old.ID.String(), "scope": in.Scope,
			"limits": limits, "delegations": delegations, "days": in.Days, "revoked": out.Revoked,
			"descendant_mandates": out.DescendantMandates}
		return nil
	})
	return out, wrap(err, "replace mandate %s", id)
}
