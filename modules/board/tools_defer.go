package board

import (
	"context"

	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addDefer(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_defer", Effect: kernel.Updates, RoundTrips: 5, MandateArg: "mandate_id", ReadAhead: readTaskAhead, Title: "Defer to a human",
		Description: "Hand a task back to people when you lack the authority for it (a refusal you must not " +
			"work around, a decision that is theirs): one you hold, or an open one you could claim (your " +
			"mandate covers its action; a delegated task only by its delegate). Say why and, if you know, " +
			"which scopes would be needed. Then stop working on it; never ask for a mandate for yourself.",
	}, m.deferTask)
}

type deferIn struct {
	TaskID      string   `json:"task_id" jsonschema:"The task's id (a UUID, from pact_list)."`
	Reason      string   `json:"reason" jsonschema:"Why people must decide, in a sentence they can act on."`
	MandateID   string   `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on."`
	NeededScope []string `json:"needed_scope,omitempty" jsonschema:"Scopes that would let an agent do it, e.g. [\"deploy.web@project:web\"]."`
}

// doneOut is the answer of a call that hands a task on: pact_defer.
type doneOut struct {
	OK     bool   `json:"ok" jsonschema:"Always true: the change was made."`
	TaskID string `json:"task_id" jsonschema:"The task changed."`
	Status string `json:"status" jsonschema:"Its status now."`
	Note   string `json:"note" jsonschema:"What happens next."`
}

func (m *Module) deferTask(ctx context.Context, c *kernel.Call, a deferIn) (doneOut, error) {
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return doneOut{}, err
	}
	got, err := m.svc.Defer(ctx, c.Tx, by, DeferInput{TaskID: a.TaskID, Reason: a.Reason, NeededScope: a.NeededScope})
	if err != nil {
		return doneOut{}, err
	}
	return doneOut{OK: true, TaskID: got.TaskID, Status: got.Status,
		Note: "A human sees this in the deferred list and decides. Stop working on it; " +
			"an answer reaches you as a message on the task (pact_wait with its task_id)."}, nil
}
