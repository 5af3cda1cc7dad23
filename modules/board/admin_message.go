package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// SendHumanMessage writes a person's message on an open task's thread
// (docs/specs/behavior.md §8.2): the body is redacted and 1-8000 characters; the
// recipient is to, else the task's assignee, delegate or creator, and must
// be an agent of the task's project that is not banned. It returns the
// message id and its recipient. Refusals: forbidden, not_found,
// invalid_request (closed task, blank or long body), agent_unknown.
func (m *Module) SendHumanMessage(ctx context.Context, by, taskID, body string, to *string) (int64, string, error) {
	var id int64
	var recipient string
	text := redact.Text(strings.TrimSpace(body))
	err := m.ident.Act(ctx, by, identity.Approver, "admin.task.message", map[string]any{"task_id": taskID, "to": to, "body": text},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			if terminal[t.Status] {
				return errs.E(errs.InvalidRequest, "task %s is %s; its thread is closed", t.ID, t.Status)
			}
			if text == "" {
				return errs.E(errs.InvalidRequest, "a message needs a body")
			}
			if n := len([]rune(text)); n > MaxMessage {
				return errs.E(errs.InvalidRequest, "a message is at most %d characters (this one has %d)", MaxMessage, n)
			}
			switch {
			case to != nil && strings.TrimSpace(*to) != "":
				recipient = strings.TrimSpace(*to)
			case t.Assignee != nil:
				recipient = *t.Assignee
			case t.DelegateTo != nil:
				recipient = *t.DelegateTo
			default:
				recipient = t.CreatedBy
			}
			var n int
			if err := tx.NewRaw(`SELECT count(*) FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
				WHERE a.id = ? AND ap.project_id = ? AND a.status <> 'banned'`, recipient, t.ProjectID).Scan(ctx, &n); err != nil {
				return err
			}
			if n == 0 {
				return errs.E(errs.AgentUnknown, "agent %s is not an agent of project %s", recipient, t.ProjectID)
			}
			e.Payload = map[string]any{"task_id": t.ID, "to": recipient, "body": text}
			if err := tx.NewRaw(`INSERT INTO task_messages (org_id, task_id, from_human, to_agent, body) VALUES (?, ?, ?, ?, ?)
				RETURNING id`, p.OrgID, t.ID, p.ID, recipient, text).Scan(ctx, &id); err != nil {
				return err
			}
			return events.Publish(ctx, tx, events.Event{Kind: events.KindMessage, OrgID: p.OrgID, ProjectID: t.ProjectID,
				TaskID: t.ID, AgentID: recipient})
		})
	return id, recipient, err
}
