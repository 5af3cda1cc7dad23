package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// revoked is what Revoke did.
type revoked struct {
	// Descendants counts the mandates delegated from the target, revoked
	// with it; Stopped the open tasks hanging on them, canceled.
	Descendants, Stopped int
}

// Revoke revokes target, a mandate by (an agent) issued by delegating, and
// its whole subtree; the revoke hooks cancel the open tasks hanging on it
// (docs/specs/behavior.md §5.6, §6.7). Root mandates are people's to revoke.
func (s *Service) Revoke(ctx context.Context, tx bun.IDB, by Actor, target *mandate.Mandate) (revoked, error) {
	if target.IssuerKind != "agent" || target.Issuer != by.AgentID {
		return revoked{}, errs.Mandate(errs.NotIssuer, target.ID.String(),
			"agent %s did not issue mandate %s; revoke it in the Admin UI", by.AgentID, target.ID)
	}
	ev, err := s.mandates.RevokeSubtree(ctx, tx, target.ID)
	if err != nil {
		return revoked{}, wrapf(err, "revoke %s", target.ID)
	}
	stopped, err := s.st.stoppedBy(ctx, tx, target.ID.String())
	if err != nil {
		return revoked{}, wrapf(err, "revoke %s", target.ID)
	}
	return revoked{Descendants: len(ev.Subtree) - 1, Stopped: len(stopped)}, nil
}
