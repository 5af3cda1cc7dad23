package board

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// The decisions people take on a task (POST /tasks/{task_id}/<decision>),
// one operation each so each has its typed body, over the person's side of
// the service (admin_decide.go).

type resumeIn struct {
	TaskID string `path:"task_id" format:"uuid" doc:"The task's id"`
	Body   *struct {
		Answer *string `json:"answer,omitempty" maxLength:"8000" doc:"The answer the agent sees in pact_list; absent keeps the last"`
	} `required:"false"`
}

type answerIn struct {
	TaskID string `path:"task_id" format:"uuid" doc:"The task's id"`
	Body   struct {
		Answer string `json:"answer" minLength:"1" maxLength:"8000" doc:"The answer in place of the one given on resume"`
	}
}

type assignIn struct {
	TaskID string `path:"task_id" format:"uuid" doc:"The task's id"`
	Body   struct {
		Agent *string `json:"agent" maxLength:"63" example:"code-web" doc:"The agent to delegate the task to; null for nobody"`
	}
}

type editIn struct {
	TaskID string `path:"task_id" format:"uuid" doc:"The task's id"`
	Body   struct {
		Title *string `json:"title,omitempty" maxLength:"300"`
		Body  *string `json:"body,omitempty" maxLength:"100000"`
	}
}

type messageIn struct {
	TaskID string `path:"task_id" format:"uuid" doc:"The task's id"`
	Body   struct {
		Body string  `json:"body" maxLength:"8000" doc:"The message, 1-8000 characters; secrets are redacted"`
		To   *string `json:"to,omitempty" maxLength:"63" example:"code-web" doc:"The agent it is for; default the task's holder, delegate, else creator"`
	}
}

type cancelIn struct {
	TaskID string `path:"task_id" format:"uuid" doc:"The task's id"`
	Body   *struct {
		Reason string `json:"reason,omitempty" maxLength:"2000" doc:"Why, for the log and the agents"`
	} `required:"false"`
}

type assignOut struct {
	Body struct {
		Task           AdminTask `json:"task"`
		DelegateTo     *string   `json:"delegate_to"`
		RevokedMandate *string   `json:"revoked_mandate" doc:"The old delegate's mandate for the task, now revoked"`
	}
}

type messageOut struct {
	Body struct {
		OK        bool   `json:"ok"`
		MessageID int64  `json:"message_id"`
		To        string `json:"to" doc:"The agent it went to"`
	}
}

type cancelOut struct {
	Body struct {
		Task    AdminTask `json:"task"`
		Revoked []string  `json:"revoked" nullable:"false" doc:"The mandates revoked with it"`
	}
}

func (m *Module) registerDecisions(api huma.API) {
	errors := []int{http.StatusBadRequest, http.StatusNotFound}
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/approve", "approve-task", "Approve a task waiting for approval",
		identity.Approver, errors...), func(ctx context.Context, in *taskIDIn) (*taskOut, error) {
		return m.decide(ctx, in.TaskID, func(by string) error { return m.approveAs(ctx, by, in.TaskID, true) })
	})
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/reject", "reject-task",
		"Reject a task waiting for approval; its delegated mandate is revoked", identity.Approver, errors...),
		func(ctx context.Context, in *taskIDIn) (*taskOut, error) {
			return m.decide(ctx, in.TaskID, func(by string) error { return m.approveAs(ctx, by, in.TaskID, false) })
		})
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/resume", "resume-task",
		"Put a deferred task back on the board, with an answer", identity.Approver, errors...),
		func(ctx context.Context, in *resumeIn) (*taskOut, error) {
			var answer *string
			if in.Body != nil {
				answer = in.Body.Answer
			}
			return m.decide(ctx, in.TaskID, func(by string) error { return m.resumeAs(ctx, by, in.TaskID, answer) })
		})
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/answer", "change-task-answer",
		"Change the answer given on resume while the agent that asked has not read it", identity.Approver, errors...),
		func(ctx context.Context, in *answerIn) (*taskOut, error) {
			return m.decide(ctx, in.TaskID, func(by string) error { return m.changeAnswerAs(ctx, by, in.TaskID, in.Body.Answer) })
		})
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/release", "release-task",
		"Take a working task from its holder and put it back on the board", identity.Approver, errors...),
		func(ctx context.Context, in *taskIDIn) (*taskOut, error) {
			return m.decide(ctx, in.TaskID, func(by string) error { return m.releaseAs(ctx, by, in.TaskID) })
		})
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/edit", "edit-task",
		"Correct an open task's title or body; the log keeps the old text", identity.Approver, errors...),
		func(ctx context.Context, in *editIn) (*taskOut, error) {
			if err := m.svc.Editable(in.Body.Title, in.Body.Body); err != nil {
				return nil, err
			}
			return m.decide(ctx, in.TaskID, func(by string) error {
				return m.editAs(ctx, by, in.TaskID, in.Body.Title, in.Body.Body)
			})
		})
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/assign", "assign-task",
		"Delegate an open, unheld task to another agent of its project, or to nobody", identity.Approver,
		append(errors, http.StatusConflict)...), m.assign)
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/message", "message-task",
		"Write to an agent on a task's thread", identity.Approver, append(errors, http.StatusConflict)...), m.sendMessage)
	huma.Register(api, taskOp(http.MethodPost, "/tasks/{task_id}/cancel", "cancel-task",
		"Cancel an open task; its delegated mandates are revoked and its open subtasks canceled", identity.Approver,
		errors...), m.cancel)
}

// decide runs a decision as the signed-in person and answers with the task.
func (m *Module) decide(ctx context.Context, id string, fn func(by string) error) (*taskOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	if err := fn(p.ID); err != nil {
		return nil, err
	}
	t, err := m.svc.Task(ctx, nil, p.OrgID, id)
	if err != nil {
		return nil, err
	}
	return &taskOut{Body: adminTask(t)}, nil
}

func (m *Module) assign(ctx context.Context, in *assignIn) (*assignOut, error) {
	out := &assignOut{}
	var revoked string
	res, err := m.decide(ctx, in.TaskID, func(by string) error {
		agent := ""
		if in.Body.Agent != nil {
			agent = *in.Body.Agent
		}
		var err error
		revoked, err = m.assignAs(ctx, by, in.TaskID, agent)
		return err
	})
	if err != nil {
		return nil, err
	}
	out.Body.Task, out.Body.DelegateTo = res.Body, res.Body.DelegateTo
	if revoked != "" {
		out.Body.RevokedMandate = &revoked
	}
	return out, nil
}

func (m *Module) sendMessage(ctx context.Context, in *messageIn) (*messageOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	msg, err := m.messageAs(ctx, p.ID, in.TaskID, in.Body.Body, in.Body.To)
	if err != nil {
		return nil, err
	}
	out := &messageOut{}
	out.Body.OK, out.Body.MessageID, out.Body.To = true, msg.ID, msg.To
	return out, nil
}

func (m *Module) cancel(ctx context.Context, in *cancelIn) (*cancelOut, error) {
	reason := ""
	if in.Body != nil {
		reason = in.Body.Reason
	}
	var revoked []string
	res, err := m.decide(ctx, in.TaskID, func(by string) error {
		var err error
		revoked, err = m.cancelAs(ctx, by, in.TaskID, reason)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &cancelOut{}
	out.Body.Task, out.Body.Revoked = res.Body, revoked
	if out.Body.Revoked == nil {
		out.Body.Revoked = []string{}
	}
	return out, nil
}
