package pacts

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
)

// resource serves pact://pacts/{id}: get_pact with the agent's default
// mandate, so a resource read is verified and logged like the tool call.
func (m *Module) resource() kernel.Resource {
	return kernel.Resource{URITemplate: "pact://pacts/{pact_id}", Name: "pact", Title: "Pact",
		Description: "A pact you sit in, as get_pact reads it: participants, zones, the thread and open decisions.",
		MIMEType:    "application/json",
		Read: func(ctx context.Context, agent, uri string, params map[string]string) (string, error) {
			var mandateID string
			err := m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
				var err error
				mandateID, err = m.mandates.Default(ctx, tx, agent)
				return err
			})
			if err != nil {
				return "", err
			}
			raw, _ := json.Marshal(map[string]any{"pact_id": params["pact_id"], "mandate_id": mandateID})
			out, err := m.tools.Call(ctx, agent, ToolGet, raw)
			if err != nil {
				return "", err
			}
			b, err := json.Marshal(out)
			return string(b), err
		}}
}
