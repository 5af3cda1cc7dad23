package board

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Revoked is what Revoke did.
type Revoked struct {
	// Descendants counts the mandates delegated from the target, revoked
	// with it; Stopped the open tasks hanging on them, canceled.
	Descendants, Stopped int
}

// Revocable is mandate id as agent by may ask to revoke it: one it issued,
// or another of its organization's (which Revoke then refuses as not its
// own); another organization's, or none, is not_found alike
// (docs/security.md, finding 8).
func (s *Service) Revocable(ctx context.Context, tx bun.IDB, by Actor, id string) (*mandate.Mandate, error) {
	target, err := s.mandates.Get(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if target.IssuerKind != "agent" || target.Issuer != by.AgentID {
		holder, err := loadCaller(ctx, tx, target.Holder)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if err != nil || holder.OrgID != by.OrgID {
			return nil, errs.E(errs.NotFound, "mandate %s does not exist", id)
		}
	}
	return target, nil
}

// Revoke revokes target, a mandate by (an agent) issued by delegating, and
// its whole subtree; the revoke hooks cancel the open tasks hanging on it
// (docs/specs/behavior.md §5.6, §6.7). Root mandates are people's to revoke.
func (s *Service) Revoke(ctx context.Context, tx bun.IDB, by Actor, target *mandate.Mandate) (Revoked, error) {
	if target.IssuerKind != "agent" || target.Issuer != by.AgentID {
		return Revoked{}, errs.Mandate(errs.NotIssuer, target.ID.String(),
			"agent %s did not issue mandate %s; revoke it in the Admin UI", by.AgentID, target.ID)
	}
	ev, err := s.mandates.RevokeSubtree(ctx, tx, target.ID)
	if err != nil {
		return Revoked{}, wrapf(err, "revoke %s", target.ID)
	}
	stopped, err := s.st.stoppedBy(ctx, tx, target.ID.String())
	if err != nil {
		return Revoked{}, wrapf(err, "revoke %s", target.ID)
	}
	return Revoked{Descendants: len(ev.Subtree) - 1, Stopped: len(stopped)}, nil
}
