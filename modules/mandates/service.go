package mandates

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// IssueInput describes a further root mandate a person issues.
type IssueInput struct {
	Holder      string
	Scope       []string
	Limits      map[string]float64
	Delegations *int    // default 1
	Days        float64 // default 30
}

// IssueMandate issues a further root mandate to an agent of the acting
// approver's organization. Refusals: forbidden; invalid_request (scope,
// limits, delegations or term malformed); not_found (holder);
// project_mismatch (a scope outside the holder's projects).
func (m *Module) IssueMandate(ctx context.Context, by string, in IssueInput) (*mandate.Mandate, error) {
	var out *mandate.Mandate
	payload := map[string]any{"holder": in.Holder, "scope": in.Scope, "limits": in.Limits, "delegations": in.Delegations, "days": in.Days}
	err := m.ident.Act(ctx, by, identity.Approver, "admin.mandate.issue", payload,
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if len(in.Scope) == 0 {
				return errs.E(errs.InvalidRequest, "a mandate needs a scope (--scope action@project:p,…)")
			}
			ends, err := m.ident.Term("--days", in.Days)
			if err != nil {
				return err
			}
			a, err := m.ident.GetAgent(ctx, tx, in.Holder, p.OrgID)
			if err != nil {
				return err
			}
			if err := identity.ScopesWithin(in.Scope, a.Projects); err != nil {
				return err
			}
			delegations := 1
			if in.Delegations != nil {
				delegations = *in.Delegations
			}
			md, err := m.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: a.ID, Scope: in.Scope,
				Limits: in.Limits, Delegations: delegations, ExpiresAt: ends})
			if err != nil {
				return err
			}
			e.AgentID, e.MandateChain = a.ID, []uuid.UUID{md.ID}
			out = md
			return nil
		})
	return out, wrap(err, "issue a mandate to %s", in.Holder)
}

// Revoked reports a revocation.
type Revoked struct {
	MandateID          uuid.UUID `json:"mandate_id"`
	DescendantMandates int       `json:"descendant_mandates"`
	RevokedAt          time.Time `json:"revoked_at"`
	// TasksStopped are the open tasks the revocation canceled, those under
	// the delegated mandates of canceled tasks included.
	TasksStopped []string `json:"-"`
}

// RevokeMandate revokes a mandate of the acting approver's organization and
// everything delegated under it, in one transaction. Refusals: forbidden,
// not_found (missing, malformed or another organization's id).
func (m *Module) RevokeMandate(ctx context.Context, by, id string) (*Revoked, error) {
	var out *Revoked
	err := m.ident.Act(ctx, by, identity.Approver, "admin.mandate.revoke", map[string]any{"mandate_id": id},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			md, err := m.personMandate(ctx, tx, p, id)
			if err != nil {
				return err
			}
			ev, err := m.mandates.RevokeSubtree(ctx, tx, md.ID)
			if err != nil {
				return err
			}
			e.AgentID, e.MandateChain = md.Holder, []uuid.UUID{md.ID}
			out = &Revoked{MandateID: md.ID, DescendantMandates: len(ev.Subtree) - 1, RevokedAt: m.ident.Now().UTC(),
				TasksStopped: ev.TasksStopped}
			e.Payload = map[string]any{"mandate_id": id, "descendant_mandates": out.DescendantMandates}
			return nil
		})
	return out, wrap(err, "revoke mandate %s", id)
}

// personMandate loads a mandate of the person's organization (held by one
// of its agents); another organization's mandate answers like a missing one.
func (m *Module) personMandate(ctx context.Context, tx bun.IDB, p *identity.Person, id string) (*mandate.Mandate, error) {
	md, err := m.mandates.Get(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if _, err := m.ident.GetAgent(ctx, tx, md.Holder, p.OrgID); err != nil {
		return nil, errs.E(errs.NotFound, "mandate %s does not exist", id)
	}
	return md, nil
}

// wrap says what was being done around an error that is not a refusal, so
// an internal error in the log can be traced; refusals go back as they are.
func wrap(err error, format string, args ...any) error {
	if err == nil || errs.IsRefusal(err) {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
