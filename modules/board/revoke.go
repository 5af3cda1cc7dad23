package board

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/google/uuid"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) revokeTool() kernel.Tool {
	return kernel.Tool{
		Name: "pact_revoke", Title: "Revoke a mandate you issued",
		Description: "Revoke a mandate you issued by delegating (pact_post with delegate_to), and everything " +
			"under it; the open tasks hanging on it are canceled. Root mandates are revoked by people only.",
		Input: object([]string{"mandate_id"}, map[string]*jsonschema.Schema{
			"mandate_id": str("A mandate you issued by delegating (its delegated_mandate_id)."),
		}),
		Run: m.revoke,
	}
}

func (m *Module) revoke(ctx context.Context, c *kernel.Call) (any, error) {
	var a struct {
		MandateID string `json:"mandate_id"`
	}
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return nil, errs.E(errs.InvalidRequest, "pact_revoke: %v", err)
	}
	target, err := m.mandates.Get(ctx, c.Tx, a.MandateID)
	if err != nil {
		return nil, err
	}
	c.Entry.MandateChain = []uuid.UUID{target.ID}
	if target.IssuerKind != "agent" || target.Issuer != c.AgentID {
		return nil, errs.Mandate(errs.NotIssuer, target.ID.String(),
			"agent %s did not issue mandate %s; revoke it in the Admin UI", c.AgentID, target.ID)
	}
	ev, err := m.mandates.RevokeSubtree(ctx, c.Tx, target.ID)
	if err != nil {
		return nil, err
	}
	var stopped int
	if err := c.Tx.NewRaw(`SELECT count(*) FROM tasks WHERE result->>'reason' = 'mandate_revoked'
		AND result->>'mandate_id' = ?`, target.ID.String()).Scan(ctx, &stopped); err != nil {
		return nil, err
	}
	return map[string]any{"revoked": target.ID.String(), "descendant_mandates": len(ev.Subtree) - 1,
		"tasks_stopped": stopped}, nil
}
