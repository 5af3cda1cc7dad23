package board

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/redact"
)

// The decisions people take on a task (docs/specs/behavior.md §7.2,
// §10.2), as the Admin API's operations (admin_decisions.go) and pact-admin
// (cli.go) both run them: each runs as person by through identity.Act,
// which checks their role (approver) and logs an admin.task.* entry with
// the change, around the service method; the entry names the task the
// service finds.

// onTask runs decide as person by, logged as action with payload.
func (m *Module) onTask(ctx context.Context, by, action string, payload map[string]any,
	decide func(ctx context.Context, tx bun.Tx, who Actor, e *ledger.Entry) error) error {
	return m.ident.Act(ctx, by, identity.Approver, action, payload,
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			who := personActor(p)
			who.Found = func(projectID, taskID string) { e.ProjectID, e.TaskID = projectID, taskID }
			return decide(ctx, tx, who, e)
		})
}

func (m *Module) approveAs(ctx context.Context, by, taskID string, approve bool) error {
	return m.onTask(ctx, by, "admin.task.approve", map[string]any{"task_id": taskID, "approve": approve},
		func(ctx context.Context, tx bun.Tx, who Actor, _ *ledger.Entry) error {
			return m.svc.Approve(ctx, tx, who, taskID, approve)
		})
}

func (m *Module) resumeAs(ctx context.Context, by, taskID string, answer *string) error {
	return m.onTask(ctx, by, "admin.task.resume", map[string]any{"task_id": taskID, "answer": answer},
		func(ctx context.Context, tx bun.Tx, who Actor, _ *ledger.Entry) error {
			return m.svc.Resume(ctx, tx, who, taskID, answer)
		})
}

func (m *Module) changeAnswerAs(ctx context.Context, by, taskID, answer string) error {
	return m.onTask(ctx, by, "admin.task.answer", map[string]any{"task_id": taskID, "answer": answer},
		func(ctx context.Context, tx bun.Tx, who Actor, e *ledger.Entry) error {
			was, err := m.svc.ChangeAnswer(ctx, tx, who, taskID, answer)
			if err == nil {
				e.Payload = map[string]any{"task_id": e.TaskID, "answer": answer, "was": was}
			}
			return err
		})
}

func (m *Module) releaseAs(ctx context.Context, by, taskID string) error {
	return m.onTask(ctx, by, "admin.task.release", map[string]any{"task_id": taskID},
		func(ctx context.Context, tx bun.Tx, who Actor, e *ledger.Entry) error {
			from, err := m.svc.Release(ctx, tx, who, taskID)
			if err == nil {
				e.Payload = map[string]any{"task_id": e.TaskID, "released_from": from}
			}
			return err
		})
}

func (m *Module) cancelAs(ctx context.Context, by, taskID, reason string) ([]string, error) {
	var revoked []string
	err := m.onTask(ctx, by, "admin.task.cancel", map[string]any{"task_id": taskID, "reason": reason},
		func(ctx context.Context, tx bun.Tx, who Actor, _ *ledger.Entry) error {
			var err error
			revoked, err = m.svc.Cancel(ctx, tx, who, taskID, reason)
			return err
		})
	return revoked, err
}

func (m *Module) assignAs(ctx context.Context, by, taskID, agent string) (string, error) {
	var revoked string
	err := m.onTask(ctx, by, "admin.task.assign", map[string]any{"task_id": taskID, "agent": agent},
		func(ctx context.Context, tx bun.Tx, who Actor, _ *ledger.Entry) error {
			var err error
			revoked, err = m.svc.Assign(ctx, tx, who, taskID, agent)
			return err
		})
	return revoked, err
}

// editAs logs the old text with the new.
func (m *Module) editAs(ctx context.Context, by, taskID string, title, body *string) error {
	return m.onTask(ctx, by, "admin.task.edit", map[string]any{"task_id": taskID},
		func(ctx context.Context, tx bun.Tx, who Actor, e *ledger.Entry) error {
			was, err := m.svc.Edit(ctx, tx, who, taskID, title, body)
			if err != nil {
				return err
			}
			e.Payload = map[string]any{"task_id": e.TaskID, "title": title, "body": body,
				"was": map[string]any{"title": was.Title, "body": was.Body}}
			return nil
		})
}

// messageAs writes a person's message on a task's thread (§8.2) and
// returns it; the log keeps the redacted text.
func (m *Module) messageAs(ctx context.Context, by, taskID, body string, to *string) (Sent, error) {
	var msg Sent
	text := redact.Text(strings.TrimSpace(body))
	err := m.onTask(ctx, by, "admin.task.message", map[string]any{"task_id": taskID, "to": to, "body": text},
		func(ctx context.Context, tx bun.Tx, who Actor, e *ledger.Entry) error {
			var err error
			if msg, err = m.svc.Message(ctx, tx, who, taskID, body, to); err != nil {
				return err
			}
			e.Payload = map[string]any{"task_id": e.TaskID, "to": msg.To, "body": msg.Body}
			return nil
		})
	return msg, err
}
