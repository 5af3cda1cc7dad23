package board

import (
	"context"

	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addReply(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_reply", Effect: kernel.Updates, RoundTrips: 4, MandateArg: "mandate_id", ReadAhead: readTaskAhead,
		Title: "Reply to your task's question",
		Description: "Reply to the question a task you posted asked (its status is input_required after its agent " +
			"reported status=input_required): the task goes back on the board with your reply, and the agent that " +
			"asked gets it as a message. A task deferred for want of authority waits for a person instead.",
	}, m.posterReply)
}

type posterReplyIn struct {
	TaskID    string `json:"task_id" jsonschema:"The task's id (a UUID, from pact_post or pact_list)."`
	Reply     string `json:"reply" jsonschema:"Your reply (at most 8000 characters): information, never authority."`
	MandateID string `json:"mandate_id" jsonschema:"The id of the mandate you act under (see pact_whoami); it must cover task.read on the task's project."`
}

type posterReplyOut struct {
	OK        bool   `json:"ok" jsonschema:"Always true: the task is back on the board with your answer."`
	TaskID    string `json:"task_id" jsonschema:"The task answered."`
	Status    string `json:"status" jsonschema:"Its status now: submitted."`
	To        string `json:"to,omitempty" jsonschema:"The agent that asked, which got your answer as a message (absent when it is no longer in the project)."`
	MessageID int64  `json:"message_id,omitzero" jsonschema:"That message's id."`
}

func (m *Module) posterReply(ctx context.Context, c *kernel.Call, a posterReplyIn) (posterReplyOut, error) {
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return posterReplyOut{}, err
	}
	got, err := m.svc.Reply(ctx, c.Tx, by, a.TaskID, a.Reply)
	if err != nil {
		return posterReplyOut{}, err
	}
	return posterReplyOut{OK: true, TaskID: got.TaskID, Status: submitted, To: got.To, MessageID: got.MessageID}, nil
}
