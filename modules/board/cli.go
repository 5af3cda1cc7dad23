package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// What pact-admin calls (docs/pact-admin.md): the decisions a person takes
// from the command line (task-approve, task-reject, task-resume,
// task-message, task-answer, task-release, task-edit, task-assign,
// task-cancel), the task list (task-list) and migrate's sweep. Each runs
// what the Admin API's operation runs (admin_decide.go, Service.Tasks), so
// the two refuse alike, and answers with what the operation answers.

// ApproveTask approves (approve) or rejects a task waiting for approval,
// as person by, and returns it.
func (m *Module) ApproveTask(ctx context.Context, by, taskID string, approve bool) (*AdminTask, error) {
	if err := m.approveAs(ctx, by, taskID, approve); err != nil {
		return nil, err
	}
	return m.taskOf(ctx, by, taskID)
}

// ResumeTask puts a deferred task back on the board with answer (nil
// keeps the last), as person by, and returns it.
func (m *Module) ResumeTask(ctx context.Context, by, taskID string, answer *string) (*AdminTask, error) {
	if err := m.resumeAs(ctx, by, taskID, answer); err != nil {
		return nil, err
	}
	return m.taskOf(ctx, by, taskID)
}

// SentMessage is a person's message on a task's thread.
type SentMessage struct {
	OK        bool   `json:"ok"`
	MessageID int64  `json:"message_id"`
	To        string `json:"to"`
}

// MessageTask writes to an agent on a task's thread as person by (to nil:
// the task's holder, delegate, else creator).
func (m *Module) MessageTask(ctx context.Context, by, taskID, body string, to *string) (*SentMessage, error) {
	msg, err := m.messageAs(ctx, by, taskID, body, to)
	if err != nil {
		return nil, err
	}
	return &SentMessage{OK: true, MessageID: msg.ID, To: msg.To}, nil
}

// taskOf is task taskID as person by's organization sees it.
func (m *Module) taskOf(ctx context.Context, by, taskID string) (*AdminTask, error) {
	p, err := m.ident.GetPerson(ctx, m.db, by)
	if err != nil {
		return nil, err
	}
	t, err := m.svc.Task(ctx, nil, p.OrgID, taskID)
	if err != nil {
		return nil, err
	}
	out := adminTask(t)
	return &out, nil
}

// ChangeTaskAnswer changes the answer given on resume while the agent that
// asked has not read it, as person by, and returns the task.
func (m *Module) ChangeTaskAnswer(ctx context.Context, by, taskID, answer string) (*AdminTask, error) {
	if err := m.changeAnswerAs(ctx, by, taskID, answer); err != nil {
		return nil, err
	}
	return m.taskOf(ctx, by, taskID)
}

// ReleaseTask takes a working task from its holder and puts it back on the
// board, as person by, and returns it.
func (m *Module) ReleaseTask(ctx context.Context, by, taskID string) (*AdminTask, error) {
	if err := m.releaseAs(ctx, by, taskID); err != nil {
		return nil, err
	}
	return m.taskOf(ctx, by, taskID)
}

// EditTask corrects an open task's title or body (nil leaves it), as person
// by, and returns it; the log keeps the old text.
func (m *Module) EditTask(ctx context.Context, by, taskID string, title, body *string) (*AdminTask, error) {
	if err := m.svc.Editable(title, body); err != nil {
		return nil, err
	}
	if err := m.editAs(ctx, by, taskID, title, body); err != nil {
		return nil, err
	}
	return m.taskOf(ctx, by, taskID)
}

// AssignedTask is a task after a person assigned it, as the Admin API's
// assign operation answers.
type AssignedTask struct {
	Task           AdminTask `json:"task"`
	DelegateTo     *string   `json:"delegate_to"`
	RevokedMandate *string   `json:"revoked_mandate"`
}

// AssignTask delegates an open, unheld task to agent ("" for nobody), as
// person by.
func (m *Module) AssignTask(ctx context.Context, by, taskID, agent string) (*AssignedTask, error) {
	revoked, err := m.assignAs(ctx, by, taskID, agent)
	if err != nil {
		return nil, err
	}
	t, err := m.taskOf(ctx, by, taskID)
	if err != nil {
		return nil, err
	}
	out := &AssignedTask{Task: *t, DelegateTo: t.DelegateTo}
	if revoked != "" {
		out.RevokedMandate = &revoked
	}
	return out, nil
}

// CanceledTask is a task a person canceled, with the mandates revoked with
// it, as the Admin API's cancel operation answers.
type CanceledTask struct {
	Task    AdminTask `json:"task"`
	Revoked []string  `json:"revoked"`
}

// CancelTask cancels an open task with reason, as person by.
func (m *Module) CancelTask(ctx context.Context, by, taskID, reason string) (*CanceledTask, error) {
	revoked, err := m.cancelAs(ctx, by, taskID, reason)
	if err != nil {
		return nil, err
	}
	t, err := m.taskOf(ctx, by, taskID)
	if err != nil {
		return nil, err
	}
	if revoked == nil {
		revoked = []string{}
	}
	return &CanceledTask{Task: *t, Revoked: revoked}, nil
}

// TasksFor lists the tasks of person by's organization through f, as GET
// /admin/api/tasks does for a viewer: pact-admin task-list.
func (m *Module) TasksFor(ctx context.Context, by string, f TaskFilter) ([]AdminTask, error) {
	if by == "" {
		return nil, errs.E(errs.Forbidden, "name the person acting (--by <human-id>)")
	}
	p, err := identity.RequirePerson(ctx, m.db, by, identity.Viewer)
	if err != nil {
		return nil, err
	}
	got, err := m.svc.Tasks(ctx, nil, personActor(p), TaskQuery{People: f})
	if err != nil {
		return nil, err
	}
	return adminTasks(got.Tasks), nil
}

// SweepClosedTasks revokes the delegated mandates of every closed task whose
// chain is still alive (Service.SweepClosedTasks): pact-admin migrate.
func (m *Module) SweepClosedTasks(ctx context.Context, tx bun.IDB) (int, error) {
	return m.svc.SweepClosedTasks(ctx, tx)
}
