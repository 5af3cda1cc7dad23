package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/sdk/errs"
)

// The person's side of the task services (docs/specs/behavior.md §7.2,
// §10.2): each adapter runs as person by through identity.Act, which checks
// their role (approver) and logs an admin.task.* entry with the change;
// the task is confined to their organization (another organization's task
// answers like a missing one) and handed to the service method.

// onTask runs decide on task taskID as person by, logged as action with
// payload.
func (m *Module) onTask(ctx context.Context, by, action, taskID string, payload map[string]any,
	decide func(ctx context.Context, tx bun.Tx, who Actor, t *task, e *ledger.Entry) error) error {
	return m.ident.Act(ctx, by, identity.Approver, action, payload,
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			t, err := m.svc.personTask(ctx, tx, p, e, taskID)
			if err != nil {
				return err
			}
			return decide(ctx, tx, personActor(p), t, e)
		})
}

// personTask loads a task of the person's organization for update.
func (s *Service) personTask(ctx context.Context, tx bun.IDB, p *identity.Person, e *ledger.Entry, id string) (*task, error) {
	t, err := s.st.getTask(ctx, tx, id, true)
	if err != nil {
		return nil, err
	}
	var org string
	if t != nil {
		if org, err = s.st.projectOrg(ctx, tx, t.ProjectID); err != nil {
			return nil, fmt.Errorf("board.personTask: %w", err)
		}
	}
	if t == nil || org != p.OrgID {
		return nil, errs.E(errs.NotFound, "task %s does not exist", id)
	}
	e.ProjectID, e.TaskID = t.ProjectID, t.ID
	return t, nil
}

func (m *Module) approveAs(ctx context.Context, by, taskID string, approve bool) error {
	return m.onTask(ctx, by, "admin.task.approve", taskID, map[string]any{"task_id": taskID, "approve": approve},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, _ *ledger.Entry) error {
			return m.svc.Approve(ctx, tx, who, t, approve)
		})
}

func (m *Module) resumeAs(ctx context.Context, by, taskID string, answer *string) error {
	return m.onTask(ctx, by, "admin.task.resume", taskID, map[string]any{"task_id": taskID, "answer": answer},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, _ *ledger.Entry) error {
			return m.svc.Resume(ctx, tx, who, t, answer)
		})
}

func (m *Module) changeAnswerAs(ctx context.Context, by, taskID, answer string) error {
	return m.onTask(ctx, by, "admin.task.answer", taskID, map[string]any{"task_id": taskID, "answer": answer},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, e *ledger.Entry) error {
			was, err := m.svc.ChangeAnswer(ctx, tx, who, t, answer)
			if err == nil {
				e.Payload = map[string]any{"task_id": t.ID, "answer": answer, "was": was}
			}
			return err
		})
}

func (m *Module) releaseAs(ctx context.Context, by, taskID string) error {
	return m.onTask(ctx, by, "admin.task.release", taskID, map[string]any{"task_id": taskID},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, e *ledger.Entry) error {
			from, err := m.svc.Release(ctx, tx, who, t)
			if err == nil {
				e.Payload = map[string]any{"task_id": t.ID, "released_from": from}
			}
			return err
		})
}

func (m *Module) cancelAs(ctx context.Context, by, taskID, reason string) ([]string, error) {
	var revoked []string
	err := m.onTask(ctx, by, "admin.task.cancel", taskID, map[string]any{"task_id": taskID, "reason": reason},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, _ *ledger.Entry) error {
			var err error
			revoked, err = m.svc.Cancel(ctx, tx, who, t, reason)
			return err
		})
	return revoked, err
}

func (m *Module) assignAs(ctx context.Context, by, taskID, agent string) (string, error) {
	var revoked string
	err := m.onTask(ctx, by, "admin.task.assign", taskID, map[string]any{"task_id": taskID, "agent": agent},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, _ *ledger.Entry) error {
			var err error
			revoked, err = m.svc.Assign(ctx, tx, who, t, agent)
			return err
		})
	return revoked, err
}

// editAs logs the old text with the new.
func (m *Module) editAs(ctx context.Context, by, taskID string, title, body *string) error {
	return m.onTask(ctx, by, "admin.task.edit", taskID, map[string]any{"task_id": taskID},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, e *ledger.Entry) error {
			was := map[string]any{"title": t.Title, "body": t.Body}
			if err := m.svc.Edit(ctx, tx, who, t, title, body); err != nil {
				return err
			}
			e.Payload = map[string]any{"task_id": t.ID, "title": title, "body": body, "was": was}
			return nil
		})
}

// messageAs writes a person's message on a task's thread through Message
// (§8.2) and returns it; the log keeps the redacted text.
func (m *Module) messageAs(ctx context.Context, by, taskID, body string, to *string) (sent, error) {
	var msg sent
	text := redact.Text(strings.TrimSpace(body))
	err := m.onTask(ctx, by, "admin.task.message", taskID, map[string]any{"task_id": taskID, "to": to, "body": text},
		func(ctx context.Context, tx bun.Tx, who Actor, t *task, e *ledger.Entry) error {
			var err error
			if msg, err = m.svc.Message(ctx, tx, who, t, body, to); err != nil {
				return err
			}
			e.Payload = map[string]any{"task_id": t.ID, "to": msg.To, "body": msg.Body}
			return nil
		})
	return msg, err
}
