package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// Waiting for a message (pact_wait) and for work (pact_events): each a
// wait that holds outside any transaction (kernel.WaitFor), then a logged
// part that answers in the call's transaction.

// MaxWait is the longest a waiting call holds on.
const MaxWait = 50 * time.Second

// waitFor is how long a call asking to wait seconds (nil: def) holds on:
// between 0 and MaxWait.
func waitFor(seconds *float64, def time.Duration) time.Duration {
	d := def
	if seconds != nil {
		d = time.Duration(*seconds * float64(time.Second))
	}
	return min(max(d, 0), MaxWait)
}

// chainAhead is the step that reads the chain of mandateID with the wait's
// BEGIN, which waitScope's Verify then takes (none when the id is not one).
func (s *Service) chainAhead(agent, mandateID string) []db.Step {
	if step, ok := s.mandates.ReadAhead(mandateID, agent); ok {
		return []db.Step{step}
	}
	return nil
}

// waitScope verifies the chain of mandateID for agent and returns it, the
// caller (who, as the call's gate read it, or read here when nil) and the
// projects it may read; naming a task, the task must be in one of them.
func (s *Service) waitScope(ctx context.Context, tx bun.IDB, agent string, who *caller, mandateID, taskID string) (mandate.Chain, *caller, []string, error) {
	chain, err := s.mandates.Verify(ctx, tx, mandateID, agent)
	if err != nil {
		return nil, nil, nil, err
	}
	if who == nil {
		if who, err = loadCaller(ctx, tx, agent); err != nil {
			return nil, nil, nil, err
		}
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

// WaitForMessage checks that agent may read what it waits for (under the
// chain of mandateID; on task taskID, unless it is "", which it must see),
// then returns the wait, at most d, for a message to it, committed in any
// board process.
func (s *Service) WaitForMessage(ctx context.Context, agent, mandateID, taskID string, d time.Duration) (*events.Wait, error) {
	tx, err := s.db.Begin(ctx, s.chainAhead(agent, mandateID)...)
	if err != nil {
		return nil, err
	}
	_, _, projects, err := s.waitScope(ctx, tx, agent, nil, mandateID, taskID)
	if err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	match := func(ev events.Event) bool {
		return ev.Kind == events.KindMessage && ev.AgentID == agent && contains(projects, ev.ProjectID) &&
			(taskID == "" || ev.TaskID == taskID)
	}
	ready := func(ctx context.Context) (ready bool, err error) {
		return s.st.anyUnread(ctx, agent, projects, taskID)
	}
	return s.hub.NewWait(match, d, ready, nil), nil
}

// Taken is what TakeMessages did. Chain, once verified, and the task's
// project ("" when it names none) are set even when it fails later.
type Taken struct {
	Chain     mandate.Chain
	ProjectID string
	Messages  []TaskMessage
}

// TakeMessages returns the unread messages to the caller who (as the
// call's gate read it) that the chain of mandateID lets it read (only on
// task taskID unless it is ""), up to 50, oldest first, and marks them
// read; naming a task, it is the agent's heartbeat on it.
func (s *Service) TakeMessages(ctx context.Context, tx bun.IDB, who *caller, mandateID, taskID string) (Taken, error) {
	var out Taken
	agent := who.ID
	chain, _, projects, err := s.waitScope(ctx, tx, agent, who, mandateID, taskID)
	if err != nil {
		return out, err
	}
	out.Chain = chain
	if taskID != "" {
		if t, _ := s.st.getTask(ctx, tx, taskID, false); t != nil {
			out.ProjectID = t.ProjectID
		}
	}
	if out.Messages, err = s.unreadMessages(ctx, tx, agent, projects, taskID, true); err != nil {
		return out, err
	}
	if taskID != "" {
		// Any successful call naming the task is its assignee's heartbeat
		// (docs/specs/behavior.md §6.0 step 6, §7.3).
		if err := s.st.heartbeat(ctx, tx, taskID, agent); err != nil {
			return out, err
		}
	}
	return out, nil
}

// unreadMessages returns up to 50 unread messages to agent in projects,
// oldest first, optionally only on task taskID; markRead marks them read.
func (s *Service) unreadMessages(ctx context.Context, tx bun.IDB, agent string, projects []string, taskID string, markRead bool) ([]TaskMessage, error) {
	rows, err := s.st.unread(ctx, tx, agent, projects, taskID)
	if err != nil {
		return nil, err
	}
	if markRead && len(rows) > 0 {
		ids := make([]int64, 0, len(rows))
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
		if err := s.st.markRead(ctx, tx, ids); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// EventsInput is what pact_events watches: the projects the chain of
// MandateID lets the agent read (only ProjectID, unless it is ""), after
// cursor Since, for at most Wait.
type EventsInput struct {
	MandateID string
	Since     int64
	Wait      time.Duration
	ProjectID string
}

// eventsScope verifies the chain and returns it, the projects watched, and
// whether the agent only watches (a chat agent never claims); who is the
// caller as the call's gate read it (nil: read here).
func (s *Service) eventsScope(ctx context.Context, tx bun.IDB, agent string, who *caller, in EventsInput) (mandate.Chain, []string, bool, error) {
	chain, who, projects, err := s.waitScope(ctx, tx, agent, who, in.MandateID, "")
	if err != nil {
		return nil, nil, false, err
	}
	if in.ProjectID != "" {
		if !contains(projects, in.ProjectID) {
			return nil, nil, false, errs.E(errs.ProjectMismatch, "agent %s cannot read project %s", agent, in.ProjectID)
		}
		projects = []string{in.ProjectID}
	}
	return chain, projects, postOnly[who.Client], nil
}

// WaitForWork checks the caller may wait and marks it listening, then
// returns the wait for claimable work or a message to it; whatever ends
// the wait marks the agent no longer listening.
func (s *Service) WaitForWork(ctx context.Context, agent string, in EventsInput) (*events.Wait, error) {
	var projects []string
	var watchOnly bool
	cursor := max(in.Since, 0)
	// Not cut short by the client: a transaction that committed while its
	// answer was cut off would leave the agent recorded as holding (and
	// listening) with no wait to take it out. Once made, the wait ends,
	// whatever ends it, and takes the agent out. Three round trips: the
	// chain read with BEGIN, the caller, and the marks with COMMIT.
	wctx := context.WithoutCancel(ctx)
	tx, err := s.db.Begin(wctx, s.chainAhead(agent, in.MandateID)...)
	if err != nil {
		return nil, err
	}
	if _, projects, watchOnly, err = s.eventsScope(wctx, tx, agent, nil, in); err != nil {
		tx.Rollback(wctx)
		return nil, err
	}
	marks := []db.Step{s.ident.ListenStep(agent, in.Wait)}
	if !watchOnly { // chat agents never claim: nothing is offered to them
		marks = append(marks, holdStep(agent, projects, in.Wait+5*time.Second))
	}
	if err := tx.Commit(wctx, marks...); err != nil {
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
		ready, committed, err := s.st.eventsReady(ctx, agent, projects, watchOnly, cursor)
		if err != nil {
			return false, err
		}
		if !ready && committed {
			return false, events.ErrNotYet
		}
		return ready, nil
	}
	stop := func(ctx context.Context) error {
		marks := []db.Step{s.ident.ListenStep(agent, 0)}
		if !watchOnly {
			marks = append(marks, releaseStep(agent))
		}
		return s.db.Once(ctx, marks...)
	}
	return s.hub.NewWait(match, in.Wait, ready, stop), nil
}

// Work is what pact_events answers. Chain, once verified, and Projects are
// set even when it fails later.
type Work struct {
	Chain    mandate.Chain
	Projects []string
	// Tasks the agent may claim that changed after the cursor (at most 50,
	// and the rest of the last transaction's), those offered to it first.
	Tasks []Task
	// Offered are the ids of the tasks offered to it.
	Offered []string
	// Messages are its unread messages, not marked read.
	Messages  []TaskMessage
	NextSince int64
}

// Work is pact_events' logged part: the tasks the caller who (as the
// call's gate read it) may claim after the cursor and its unread messages
// (not marked read: pact_message or pact_wait read them).
func (s *Service) Work(ctx context.Context, tx *db.Tx, who *caller, in EventsInput) (Work, error) {
	var out Work
	agent := who.ID
	chain, projects, watchOnly, err := s.eventsScope(ctx, tx, agent, who, in)
	if err != nil {
		return out, err
	}
	out.Chain, out.Projects = chain, projects
	cursor := max(in.Since, 0)
	// One round trip: stale claims released, the head (the last change
	// below the horizon), the claimable rows, the offers to this agent
	// and its unread messages. The rows' statement reads the horizon
	// again, later, so at or above the one read first: a change between
	// the two is returned and comes once more, never skipped. This call's
	// own changes (stale claims it just released) are shown too, but the
	// cursor stays below the horizon, so they come again.
	release, logReleased := s.releaseStaleStep(projects)
	var head int64
	rows := []Task{}
	var offers []string
	steps := []db.Step{release, headStep(projects, &head), offersStep(agent, &offers),
		unreadStep(agent, projects, &out.Messages)}
	if !watchOnly {
		steps = append(steps, claimableStep(projects, cursor, agent, &rows))
	}
	if err := tx.Pipeline(ctx, steps...); err != nil {
		return out, err
	}
	if err := logReleased(ctx, tx); err != nil {
		return out, err
	}
	out.NextSince = cursor
	if len(rows) == 50 {
		// The cursor moves by whole transactions: the rest of the last
		// one's changes come now, not never.
		last := rows[len(rows)-1]
		rest, err := s.st.restOfXact(ctx, tx, projects, cursor, agent, last)
		if err != nil {
			return out, err
		}
		rows = append(rows, rest...)
		// Never past the head, the last change that committed: a
		// transaction id above it may belong to a transaction PostgreSQL
		// loses in a crash and hands out again after it (an immediate stop
		// under load showed it: docs/reliability.md, scenario 3).
		out.NextSince = max(out.NextSince, min(last.ChangeXact, head))
	} else {
		// Nothing claimable was skipped: move the cursor to the head, so
		// changes that concern others are not seen again.
		out.NextSince = max(out.NextSince, head)
	}
	out.Offered = []string{}
	for i := range rows {
		if contains(offers, rows[i].ID) {
			out.Offered = append(out.Offered, rows[i].ID)
		}
	}
	out.Tasks = make([]Task, 0, len(rows))
	for _, first := range []bool{true, false} { // the offered ones first
		for i := range rows {
			if contains(out.Offered, rows[i].ID) == first {
				out.Tasks = append(out.Tasks, rows[i])
			}
		}
	}
	return out, nil
}
