package board

import (
	"context"
	"time"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
)

func (m *Module) addWait(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_wait", Effect: kernel.Reads, RoundTrips: 9, MandateArg: "mandate_id", Title: "Wait for a message",
		Description: "Wait up to 50 seconds for a message to you (optionally on one task) and return it, so two " +
			"running agents can talk almost in real time. Returns at once when one is already waiting.",
		Wait: kernel.WaitFor("pact_wait", m.waitForMessage),
	}, m.takeMessages)
}

type waitIn struct {
	MandateID string   `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on."`
	Seconds   *float64 `json:"seconds,omitempty" jsonschema:"How long to wait at most, 0-50 (default 30)."`
	TaskID    *string  `json:"task_id,omitempty" jsonschema:"Only messages on this task."`
}

type waitOut struct {
	Messages []messageView `json:"messages" jsonschema:"The messages to you, oldest first; they are now marked read."`
	TimedOut bool          `json:"timed_out" jsonschema:"Whether the time ran out with no message."`
	// Reconnect keeps a held call from being cut off by a rolling restart.
	Reconnect bool   `json:"reconnect,omitempty" jsonschema:"The board is shutting down and answered early: call again, another board answers."`
	Note      string `json:"note" jsonschema:"How to take messages from other agents."`
}

func (a waitIn) deadline(def time.Duration) time.Duration { return waitFor(a.Seconds, def) }

func (a waitIn) task() string {
	if a.TaskID == nil {
		return ""
	}
	return *a.TaskID
}

func (m *Module) waitForMessage(ctx context.Context, agent string, a waitIn) (*events.Wait, error) {
	return m.svc.WaitForMessage(ctx, agent, a.MandateID, a.task(), a.deadline(30*time.Second))
}

// takeMessages is pact_wait's logged part: the unread messages, marked read.
func (m *Module) takeMessages(ctx context.Context, c *kernel.Call, a waitIn) (waitOut, error) {
	c.Entry.Payload = map[string]any{"mandate_id": a.MandateID, "seconds": a.deadline(30 * time.Second).Seconds(), "task_id": a.TaskID}
	got, err := m.svc.TakeMessages(ctx, c.Tx, c.Caller, a.MandateID, a.task())
	if got.Chain != nil {
		c.Entry.MandateChain = got.Chain.IDs()
		if a.task() != "" {
			c.Entry.TaskID, c.Entry.ProjectID = a.task(), got.ProjectID
		}
	}
	if err != nil {
		return waitOut{}, err
	}
	return waitOut{Messages: messageViews(got.Messages, true), TimedOut: len(got.Messages) == 0, Reconnect: c.Draining,
		Note: messageFrame}, nil
}
