package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// MaxWait is the longest a waiting call holds on.
const MaxWait = 50 * time.Second

func (m *Module) addWait(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_wait", RoundTrips: 13, MandateArg: "mandate_id", Title: "Wait for a message",
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

func (a waitIn) deadline(def time.Duration) time.Duration {
	d := def
	if a.Seconds != nil {
		d = time.Duration(*a.Seconds * float64(time.Second))
	}
	return min(max(d, 0), MaxWait)
}

func (a waitIn) Task() string {
	if a.TaskID == nil {
		return ""
	}
	return *a.TaskID
}

// waitForMessage checks the caller may read what it waits for, then
// returns the wait for a message to it, committed in any board process.
func (m *Module) waitForMessage(ctx context.Context, agent string, a waitIn) (*events.Wait, error) {
	var projects []string
	err := m.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		_, _, projects, err = m.svc.waitScope(ctx, tx, agent, a.MandateID, a.Task())
		return err
	})
	if err != nil {
		return nil, err
	}
	match := func(ev events.Event) bool {
		return ev.Kind == events.KindMessage && ev.AgentID == agent && contains(projects, ev.ProjectID) &&
			(a.Task() == "" || ev.TaskID == a.Task())
	}
	ready := func(ctx context.Context) (ready bool, err error) {
		return m.st.anyUnread(ctx, agent, projects, a.Task())
	}
	return m.hub.NewWait(match, a.deadline(30*time.Second), ready, nil), nil
}

// waitScope verifies the chain and returns it, the caller, and the projects
// the caller may read (runners: not production ones); with a task, the task
// must be visible.
func (s *Service) waitScope(ctx context.Context, tx bun.IDB, agent, mandateID, taskID string) (mandate.Chain, *caller, []string, error) {
	chain, err := s.mandates.Verify(ctx, tx, mandateID, agent)
	if err != nil {
		return nil, nil, nil, err
	}
	who, err := loadCaller(ctx, tx, agent)
	if err != nil {
		return nil, nil, nil, err
	}
	readable := readableProjects(who, chain)
	if who.Client == "runner" && len(readable) > 0 {
		// One query for the production flags of every readable project.
		if readable, err = s.st.notProduction(ctx, tx, readable); err != nil {
			return nil, nil, nil, err
		}
	}
	if taskID != "" {
		t, err := s.st.getTask(ctx, tx, taskID, false)
		if err != nil {
			return nil, nil, nil, err
		}
		if t == nil || !contains(readable, t.ProjectID) {
			return nil, nil, nil, errs.E(errs.NotFound, "task %s does not exist", taskID)
		}
	}
	return chain, who, readable, nil
}

// takeMessages is pact_wait's logged part: the unread messages, marked read.
func (m *Module) takeMessages(ctx context.Context, c *kernel.Call, a waitIn) (waitOut, error) {
	c.Entry.Payload = map[string]any{"mandate_id": a.MandateID, "seconds": a.deadline(30 * time.Second).Seconds(), "task_id": a.TaskID}
	chain, _, projects, err := m.svc.waitScope(ctx, c.Tx, c.AgentID, a.MandateID, a.Task())
	if err != nil {
		return waitOut{}, err
	}
	c.Entry.MandateChain = chain.IDs()
	if a.Task() != "" {
		c.Entry.TaskID = a.Task()
		if t, _ := m.st.getTask(ctx, c.Tx, a.Task(), false); t != nil {
			c.Entry.ProjectID = t.ProjectID
		}
	}
	msgs, err := m.svc.unreadMessages(ctx, c.Tx, c.AgentID, projects, a.Task(), true)
	if err != nil {
		return waitOut{}, err
	}
	if a.Task() != "" {
		// Any successful call naming the task is its assignee's heartbeat
		// (docs/specs/behavior.md §6.0 step 6, §7.3).
		if err := m.st.heartbeat(ctx, c.Tx, a.Task(), c.AgentID); err != nil {
			return waitOut{}, err
		}
	}
	return waitOut{Messages: msgs, TimedOut: len(msgs) == 0, Reconnect: c.Draining, Note: messageFrame}, nil
}
