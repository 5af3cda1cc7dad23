package board

import (
	"context"

	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addCancel(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_cancel", Effect: kernel.Updates, RoundTrips: 11, MandateArg: "mandate_id", ReadAhead: readTaskAhead,
		Title: "Cancel a task you posted",
		Description: "Withdraw a task you posted and no longer need, under the mandate you posted it with: it is " +
			"canceled with your reason, what you delegated with it is revoked, its open subtasks are canceled, " +
			"and whoever holds it is stopped: their next report is refused. Tasks others posted are people's to cancel.",
	}, m.withdraw)
}

type withdrawIn struct {
	TaskID    string `json:"task_id" jsonschema:"The task's id (a UUID, from pact_post or pact_list)."`
	Reason    string `json:"reason" jsonschema:"Why it is no longer needed, in a sentence; whoever worked on it reads it."`
	MandateID string `json:"mandate_id" jsonschema:"The mandate you posted the task under (see pact_whoami)."`
}

type withdrawOut struct {
	OK      bool     `json:"ok" jsonschema:"Always true: the task was canceled."`
	TaskID  string   `json:"task_id" jsonschema:"The task canceled."`
	Status  string   `json:"status" jsonschema:"Its status now: canceled."`
	Revoked []string `json:"revoked" jsonschema:"The mandates revoked with it: the one you delegated with the task, and those under it."`
}

func (m *Module) withdraw(ctx context.Context, c *kernel.Call, a withdrawIn) (withdrawOut, error) {
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return withdrawOut{}, err
	}
	got, err := m.svc.Withdraw(ctx, c.Tx, by, a.TaskID, a.Reason)
	if err != nil {
		return withdrawOut{}, err
	}
	if got.Revoked == nil {
		got.Revoked = []string{}
	}
	return withdrawOut{OK: true, TaskID: got.TaskID, Status: canceled, Revoked: got.Revoked}, nil
}
