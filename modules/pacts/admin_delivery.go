package pacts

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// AdminWakeAction is the logged action of a person pressing "Wake it" on an
// agent whose pact webhook was switched off.
const AdminWakeAction = "admin.pact.delivery.wake"

type wakeIn struct {
	AgentID string `path:"agent_id" maxLength:"63" example:"ventureos" doc:"The agent whose pact webhook to turn back on"`
}

type wakeOut struct {
	Body struct {
		AgentID string `json:"agent_id"`
		Woken   bool   `json:"woken" doc:"true when the webhook was switched off and is now on; false when it was on already"`
	}
}

// registerWakeOp adds "Wake it": POST /agents/{agent_id}/pact-delivery/wake.
// Any signed-in person reaches the handler; the service lets an approver
// or owner, or the agent's own person, through (WakeDelivery).
func (m *Module) registerWakeOp(h *kernel.Host) {
	huma.Register(h.Admin(), kernel.AdminOp(huma.Operation{OperationID: "pacts-wake-delivery", Method: http.MethodPost,
		Path: "/agents/{agent_id}/pact-delivery/wake", Summary: "Turn an agent's switched-off pact webhook back on (Wake it)",
		Description: "Deliveries resume with the next event; what was missed meanwhile is read with get_pact. " +
			"Approvers and owners may wake any agent's webhook, other people only their own agents'.",
		Tags: []string{"pacts"}, Errors: []int{http.StatusNotFound}, MaxBodyBytes: 1024}, identity.Viewer), m.adminWake)
}

func (m *Module) adminWake(ctx context.Context, in *wakeIn) (*wakeOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	out := &wakeOut{}
	out.Body.AgentID = in.AgentID
	err = m.ident.Act(ctx, p.ID, identity.Viewer, AdminWakeAction, map[string]any{"agent_id": in.AgentID},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) (err error) {
			out.Body.Woken, err = m.svc.WakeDelivery(ctx, tx, p, in.AgentID, e)
			return err
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}
