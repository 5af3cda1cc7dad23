package board

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addRevoke(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_revoke", RoundTrips: 11, Title: "Revoke a mandate you issued",
		Description: "Revoke a mandate you issued by delegating (pact_post with delegate_to), and everything " +
			"under it; the open tasks hanging on it are canceled. Root mandates are revoked by people only.",
	}, m.revoke)
}

type revokeIn struct {
	MandateID string `json:"mandate_id" jsonschema:"A mandate you issued by delegating (its delegated_mandate_id)."`
}

type revokeOut struct {
	Revoked            string `json:"revoked" jsonschema:"The mandate revoked."`
	DescendantMandates int    `json:"descendant_mandates" jsonschema:"How many mandates delegated from it were revoked with it."`
	TasksStopped       int    `json:"tasks_stopped" jsonschema:"How many open tasks hanging on them were canceled."`
}

func (m *Module) revoke(ctx context.Context, c *kernel.Call, a revokeIn) (revokeOut, error) {
	target, err := m.mandates.Get(ctx, c.Tx, a.MandateID)
	if err != nil {
		return revokeOut{}, err
	}
	if target.IssuerKind != "agent" || target.Issuer != c.AgentID {
		// Not the caller's to revoke: another organization's mandate
		// answers exactly as a missing one (docs/security.md, finding 8).
		holder, err := loadCaller(ctx, c.Tx, target.Holder)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return revokeOut{}, err
		}
		if err != nil || holder.OrgID != c.OrgID {
			return revokeOut{}, errs.E(errs.NotFound, "mandate %s does not exist", a.MandateID)
		}
	}
	c.Entry.MandateChain = []uuid.UUID{target.ID}
	got, err := m.svc.Revoke(ctx, c.Tx, Actor{AgentID: c.AgentID, OrgID: c.OrgID}, target)
	if err != nil {
		return revokeOut{}, err
	}
	return revokeOut{Revoked: target.ID.String(), DescendantMandates: got.Descendants, TasksStopped: got.Stopped}, nil
}
