package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addEvents(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_events", RoundTrips: 17, MandateArg: "mandate_id", Title: "Wait for work",
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

func (a eventsIn) cursor() int64 {
	if a.Since == nil || *a.Since < 0 {
		return 0
	}
	return *a.Since
}

func (a eventsIn) wait() time.Duration {
	return waitIn{Seconds: a.Seconds}.deadline(MaxWait)
}

func (s *Service) eventsScope(ctx context.Context, tx bun.IDB, agent string, a eventsIn) (mandate.Chain, []string, bool, error) {
	chain, who, projects, err := s.waitScope(ctx, tx, agent, a.MandateID, "")
	if err != nil {
		return nil, nil, false, err
	}
	if a.ProjectID != nil && *a.ProjectID != "" {
		if !contains(projects, *a.ProjectID) {
			return nil, nil, false, errs.E(errs.ProjectMismatch, "agent %s cannot read project %s", agent, *a.ProjectID)
		}
		projects = []string{*a.ProjectID}
	}
	return chain, projects, postOnly[who.Client], nil
}

// waitForWork checks the caller may wait and marks it listening, then
// returns the wait for claimable work or a message to it; whatever ends
// the wait marks the agent no longer listening.
func (m *Module) waitForWork(ctx context.Context, agent string, a eventsIn) (*events.Wait, error) {
	var projects []string
	var watchOnly bool
	// Not cut short by the client: a transaction that committed while its
	// answer was cut off would leave the agent recorded as holding (and
	// listening) with no wait to take it out. Once made, the wait ends,
	// whatever ends it, and takes the agent out.
	err := m.db.RunInTx(context.WithoutCancel(ctx), nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if _, projects, watchOnly, err = m.svc.eventsScope(ctx, tx, agent, a); err != nil {
			return err
		}
		if err := m.ident.ListenUntil(ctx, tx, agent, a.wait()); err != nil {
			return err
		}
		if watchOnly { // chat agents never claim: nothing is offered to them
			return nil
		}
		return m.st.hold(ctx, tx, agent, projects, a.wait()+5*time.Second)
	})
	if err != nil {
		return nil, err
	}
	match := func(ev events.Event) bool {
		switch ev.Kind {
		case events.KindMessage:
			return ev.AgentID == agent && contains(projects, ev.ProjectID)
		case events.KindTask:
			return !watchOnly && contains(projects, ev.ProjectID) && (ev.AgentID == "" || ev.AgentID == agent)
		}
		return false
	}
	ready := func(ctx context.Context) (bool, error) {
		ready, committed, err := m.st.eventsReady(ctx, agent, projects, watchOnly, a.cursor())
		if err != nil {
			return false, err
		}
		if !ready && committed {
			return false, events.ErrNotYet
		}
		return ready, nil
	}
	stop := func(ctx context.Context) error {
		if !watchOnly {
			if err := m.st.releaseHold(ctx, agent); err != nil {
				return err
			}
		}
		return m.ident.ListenUntil(ctx, m.db, agent, 0)
	}
	return m.hub.NewWait(match, a.wait(), ready, stop), nil
}

// work is pact_events' logged part: the claimable tasks after the cursor and
// the unread messages (not marked read: pact_message or pact_wait read them).
func (m *Module) work(ctx context.Context, c *kernel.Call, a eventsIn) (eventsOut, error) {
	chain, projects, watchOnly, err := m.svc.eventsScope(ctx, c.Tx, c.AgentID, a)
	if err != nil {
		return eventsOut{}, err
	}
	c.Entry.MandateChain = chain.IDs()
	if len(projects) == 1 {
		c.Entry.ProjectID = projects[0]
	}
	// One round trip: stale claims released, the head (the last change
	// below the horizon), the claimable rows, the offers to this agent
	// and its unread messages. The rows' statement reads the horizon
	// again, later, so at or above the one read first: a change between
	// the two is returned and comes once more, never skipped. This call's
	// own changes (stale claims it just released) are shown too, but the
	// cursor stays below the horizon, so they come again.
	release, logReleased := m.svc.releaseStaleStep(projects)
	var head int64
	rows := []Task{}
	var offers []string
	var unread []TaskMessage
	steps := []db.Step{release, headStep(projects, &head), offersStep(c.AgentID, &offers),
		unreadStep(c.AgentID, projects, &unread)}
	if !watchOnly {
		steps = append(steps, claimableStep(projects, a.cursor(), c.AgentID, &rows))
	}
	if err := c.Tx.Pipeline(ctx, steps...); err != nil {
		return eventsOut{}, err
	}
	if err := logReleased(ctx, c.Tx); err != nil {
		return eventsOut{}, err
	}
	next := a.cursor()
	if len(rows) == 50 {
		// The cursor moves by whole transactions: the rest of the last
		// one's changes come now, not never.
		last := rows[len(rows)-1]
		rest, err := m.st.restOfXact(ctx, c.Tx, projects, a.cursor(), c.AgentID, last)
		if err != nil {
			return eventsOut{}, err
		}
		rows = append(rows, rest...)
		// Never past the head, the last change that committed: a
		// transaction id above it may belong to a transaction PostgreSQL
		// loses in a crash and hands out again after it (an immediate stop
		// under load showed it: docs/reliability.md, scenario 3).
		next = max(next, min(last.ChangeXact, head))
	} else {
		// Nothing claimable was skipped: move the cursor to the head, so
		// changes that concern others are not seen again.
		next = max(next, head)
	}
	offered := []string{}
	for i := range rows {
		if contains(offers, rows[i].ID) {
			offered = append(offered, rows[i].ID)
		}
	}
	tasks := make([]taskView, 0, len(rows))
	for _, first := range []bool{true, false} { // the offered ones first
		for i := range rows {
			if contains(offered, rows[i].ID) == first {
				tasks = append(tasks, rows[i].summary())
			}
		}
	}
	inbox := make([]messageView, 0, len(unread))
	for _, r := range unread {
		inbox = append(inbox, r.view(true))
	}
	return eventsOut{Tasks: tasks, Offered: offered, Messages: inbox, NextSince: next,
		TimedOut: len(tasks) == 0 && len(inbox) == 0, Reconnect: c.Draining}, nil
}
