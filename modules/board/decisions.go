package board

import (
	"context"
)

// The decisions a person takes from the command line (pact-admin
// task-approve, task-reject, task-resume, task-message). Each runs the
// adapter the Admin API's operation runs (people.go), so the two refuse
// alike, and answers with what the operation answers.

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
	t, err := m.orgTask(ctx, p.OrgID, taskID)
	if err != nil {
		return nil, err
	}
	out := adminTask(t)
	return &out, nil
}
