package identity

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// MandateInput describes a further root mandate a person issues.
type MandateInput struct {
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
func (s *Service) IssueMandate(ctx context.Context, by string, in MandateInput) (*mandate.Mandate, error) {
	var out *mandate.Mandate
	payload := map[string]any{"holder": in.Holder, "scope": in.Scope, "limits": in.Limits, "delegations": in.Delegations, "days": in.Days}
	err := s.Act(ctx, by, Approver, "admin.mandate.issue", payload, func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
		if len(in.Scope) == 0 {
			return errs.E(errs.InvalidRequest, "a mandate needs a scope (--scope action@project:p,…)")
		}
		ends, err := s.days("--days", in.Days)
		if err != nil {
			return err
		}
		a, err := s.GetAgent(ctx, tx, in.Holder, p.OrgID)
		if err != nil {
			return err
		}
		if err := scopesWithin(in.Scope, a.Projects); err != nil {
			return err
		}
		delegations := 1
		if in.Delegations != nil {
			delegations = *in.Delegations
		}
		m, err := s.mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: p.ID, Holder: a.ID, Scope: in.Scope,
			Limits: in.Limits, Delegations: delegations, ExpiresAt: ends})
		if err != nil {
			return err
		}
		e.AgentID, e.MandateChain = a.ID, []uuid.UUID{m.ID}
		out = m
		return nil
	})
	return out, err
}

// Revoked reports a revocation.
type Revoked struct {
	MandateID          uuid.UUID `json:"mandate_id"`
	DescendantMandates int       `json:"descendant_mandates"`
	RevokedAt          time.Time `json:"revoked_at"`
}

// RevokeMandate revokes a mandate of the acting approver's organization and
// everything delegated under it, in one transaction. Refusals: forbidden,
// not_found (missing, malformed or another organization's id).
func (s *Service) RevokeMandate(ctx context.Context, by, id string) (*Revoked, error) {
	var out *Revoked
	err := s.Act(ctx, by, Approver, "admin.mandate.revoke", map[string]any{"mandate_id": id},
		func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			m, err := s.mandates.Get(ctx, tx, id)
			if err != nil {
				return err
			}
			if _, err := s.GetAgent(ctx, tx, m.Holder, p.OrgID); err != nil {
				return errs.E(errs.NotFound, "mandate %s does not exist", id)
			}
			ev, err := s.mandates.RevokeSubtree(ctx, tx, m.ID)
			if err != nil {
				return err
			}
			e.AgentID, e.MandateChain = m.Holder, []uuid.UUID{m.ID}
			out = &Revoked{MandateID: m.ID, DescendantMandates: len(ev.Subtree) - 1, RevokedAt: s.now().UTC()}
			e.Payload = map[string]any{"mandate_id": id, "descendant_mandates": out.DescendantMandates}
			return nil
		})
	return out, err
}

// ErasePayload erases the payload of one log entry of the acting owner's
// organization (PDPA); the chain still verifies. Refusals: forbidden,
// not_found.
func (s *Service) ErasePayload(ctx context.Context, by string, entryID int64) (bool, error) {
	var erased bool
	err := s.Act(ctx, by, Owner, "admin.payload.erase", map[string]any{"entry_id": entryID},
		func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			org, err := s.log.EntryOrg(ctx, tx, entryID)
			if err != nil {
				return err
			}
			if org != p.OrgID {
				return errs.E(errs.NotFound, "entry %d does not exist", entryID)
			}
			erased, err = s.log.ErasePayload(ctx, tx, entryID)
			return err
		})
	return erased, err
}
