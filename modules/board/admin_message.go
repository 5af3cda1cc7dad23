package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/redact"
)

// SendHumanMessage writes a person's message on an open task's thread
// through Message (docs/specs/behavior.md §8.2). It returns the message id
// and its recipient. Refusals: forbidden, not_found, invalid_request
// (closed task, blank or long body), agent_unknown.
func (m *Module) SendHumanMessage(ctx context.Context, by, taskID, body string, to *string) (int64, string, error) {
	var msg sent
	text := redact.Text(strings.TrimSpace(body))
	err := m.ident.Act(ctx, by, identity.Approver, "admin.task.message", map[string]any{"task_id": taskID, "to": to, "body": text},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if msg, err = m.Message(ctx, tx, personActor(p), t, body, to); err != nil {
				return err
			}
			e.Payload = map[string]any{"task_id": t.ID, "to": msg.To, "body": msg.Body}
			return nil
		})
	return msg.ID, msg.To, err
}
