package board

import (
	"context"

	"github.com/google/uuid"

	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addRevoke(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_revoke", Effect: kernel.Updates, Idempotent: true, RoundTrips: 10, Title: "Revoke a mandate you issued",
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
	by := Actor{AgentID: c.AgentID, OrgID: c.OrgID}
	target, err := m.svc.Revocable(ctx, c.Tx, by, a.MandateID)
	if err != nil {
		return revokeOut{}, err
	}
	c.Entry.MandateChain = []uuid.UUID{target.ID}
	got, err := m.svc.Revoke(ctx, c.Tx, by, target)
	if err != nil {
		return revokeOut{}, err
	}
	return revokeOut{Revoked: target.ID.String(), DescendantMandates: got.Descendants, TasksStopped: got.Stopped}, nil
}
