package board

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
)

func (m *Module) addReport(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_report", Effect: kernel.Updates, RoundTrips: 8, MandateArg: "mandate_id", ReadAhead: readTaskAhead, Title: "Report on a task",
		Description: "Report on a task you hold: status working is a heartbeat (send one at least every 20 " +
			"minutes); completed, failed or canceled close it and need a Handoff in result (a markdown section " +
			"headed Handoff, or an object with a handoff key); input_required asks people a question and hands " +
			`the task back. usage records what a run spent, e.g. {"turns": 12}.`,
		Types: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[reportStatus](): enum(working, completed, failed, canceled, inputRequired),
		},
	}, m.report)
}

// reportStatus is what a report says of the task.
type reportStatus string

type reportIn struct {
	TaskID    string          `json:"task_id" jsonschema:"The task's id (a UUID, from pact_list)."`
	Status    reportStatus    `json:"status" jsonschema:"working (heartbeat), completed, failed, canceled (need a Handoff) or input_required (a question for people)."`
	MandateID string          `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on. The one you claimed with."`
	Result    json.RawMessage `json:"result,omitempty" jsonschema:"What you did (closing: with its Handoff section), or your question (input_required). Text or an object, at most 100000 characters of JSON."`
	Usage     kernel.Amounts  `json:"usage,omitempty" jsonschema:"What this run spent, e.g. {\"turns\": 12}; recorded even past a ceiling, then budget_exceeded says stop."`
}

type reportOut struct {
	OK               bool               `json:"ok" jsonschema:"Always true: the report was recorded."`
	TaskID           string             `json:"task_id" jsonschema:"The task reported on."`
	Status           string             `json:"status" jsonschema:"The status reported."`
	BudgetExceeded   []string           `json:"budget_exceeded,omitempty" jsonschema:"The limits this usage went past: stop working and report."`
	Budget           map[string]float64 `json:"budget,omitempty" jsonschema:"What is left of each limit of your mandate's chain, when it has any."`
	Note             string             `json:"note,omitempty" jsonschema:"What happens next (heartbeats and questions)."`
	RevokedMandate   string             `json:"revoked_mandate,omitempty" jsonschema:"The task's delegated mandate, revoked now that it is closed."`
	SubtasksCanceled *int               `json:"subtasks_canceled,omitempty" jsonschema:"How many open subtasks hanging on that mandate were canceled."`
}

func (m *Module) report(ctx context.Context, c *kernel.Call, a reportIn) (reportOut, error) {
	usage, err := mandate.CheckAmounts(a.Usage, "usage")
	if err != nil {
		return reportOut{}, err
	}
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return reportOut{}, err
	}
	got, err := m.svc.Report(ctx, c.Tx, by, ReportInput{TaskID: a.TaskID, Status: string(a.Status), Result: a.Result, Usage: usage})
	if err != nil {
		return reportOut{}, err
	}
	out := reportOut{OK: true, TaskID: got.TaskID, Status: got.Status, BudgetExceeded: got.BudgetExceeded, Budget: got.Budget}
	switch got.Status {
	case working:
		out.Note = "heartbeat recorded"
	case inputRequired:
		out.Note = "A human sees this in the deferred list, answers, and resumes it. Stop working on it."
	}
	if got.Revoked != "" {
		out.RevokedMandate, out.SubtasksCanceled = got.Revoked, &got.Stopped
	}
	return out, nil
}
