package board

import (
	"context"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addEvents(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_events", Effect: kernel.Reads, RoundTrips: 10, MandateArg: "mandate_id", Title: "Wait for work",
		Description: "For a program that keeps running (a Runner): hold this call open instead of polling " +
			"pact_list. It returns as soon as there is a task you may claim (delegated to you, open, or resumed " +
			"by a person) or an unread message to you, or after at most 50 seconds with nothing. Pass the " +
			"next_since it returns back as since, so a dropped call loses nothing. While you hold it, people " +
			"see you online.",
		Wait: kernel.WaitFor("pact_events", m.waitForWork),
	}, m.work)
}

type eventsIn struct {
	MandateID string   `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on. It must cover task.read on the projects to watch."`
	Since     *int64   `json:"since,omitempty" jsonschema:"The next_since of your previous pact_events or pact_list; 0 or absent: from the start."`
	Seconds   *float64 `json:"seconds,omitempty" jsonschema:"How long to wait at most, 0-50 (default 50)."`
	ProjectID *string  `json:"project_id,omitempty" jsonschema:"Only this project."`
}

type eventsOut struct {
	Tasks     []taskView    `json:"tasks" jsonschema:"Tasks you may claim that changed after since (at most 50), those offered to you first."`
	Offered   []string      `json:"offered" jsonschema:"The ids of the tasks offered to you: the board woke you, and no other agent waiting, for them; claim these first."`
	Messages  []messageView `json:"messages" jsonschema:"Your unread messages (read them with pact_message or pact_wait)."`
	NextSince int64         `json:"next_since" jsonschema:"Pass it back as since on your next call."`
	TimedOut  bool          `json:"timed_out" jsonschema:"Whether the time ran out with nothing for you."`
	// Reconnect keeps a held call from being cut off by a rolling restart.
	Reconnect bool `json:"reconnect,omitempty" jsonschema:"The board is shutting down and answered early: call again, another board answers; pass next_since as since so nothing is lost."`
}

// input is what a asks pact_events to watch.
func (a eventsIn) input() EventsInput {
	in := EventsInput{MandateID: a.MandateID, Wait: waitFor(a.Seconds, MaxWait)}
	if a.Since != nil {
		in.Since = *a.Since
	}
	if a.ProjectID != nil {
		in.ProjectID = *a.ProjectID
	}
	return in
}

func (m *Module) waitForWork(ctx context.Context, agent string, a eventsIn) (*events.Wait, error) {
	return m.svc.WaitForWork(ctx, agent, a.input())
}

// work is pact_events' logged part.
func (m *Module) work(ctx context.Context, c *kernel.Call, a eventsIn) (eventsOut, error) {
	got, err := m.svc.Work(ctx, c.Tx, c.Caller, a.input())
	if got.Chain != nil {
		c.Entry.MandateChain = got.Chain.IDs()
		if len(got.Projects) == 1 {
			c.Entry.ProjectID = got.Projects[0]
		}
	}
	if err != nil {
		return eventsOut{}, err
	}
	tasks, inbox := taskViews(got.Tasks), messageViews(got.Messages, true)
	return eventsOut{Tasks: tasks, Offered: got.Offered, Messages: inbox, NextSince: got.NextSince,
		TimedOut: len(tasks) == 0 && len(inbox) == 0, Reconnect: c.Draining}, nil
}
