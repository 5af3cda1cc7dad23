package board

import (
	"context"
	"fmt"
	"time"

	"github.com/pactboard/pact/core/ledger"
)

// OverviewDays is how many days the overview counts tasks for.
const OverviewDays = 14

// TaskDay is one day of the overview's tasks per day (UTC).
type TaskDay struct {
	Day       string `json:"day" format:"date" bun:"day"`
	Completed int    `json:"completed" doc:"Tasks completed that day" bun:"completed"`
	Failed    int    `json:"failed" doc:"Tasks that failed that day" bun:"failed"`
	Waiting   int    `json:"waiting" doc:"Tasks still waiting on people (approval or a deferred question) since that day" bun:"waiting"`
}

// TaskDays is organization org's tasks per day over the last OverviewDays
// days, oldest first, every day present.
func (s *Service) TaskDays(ctx context.Context, org string) ([]TaskDay, error) {
	return taskDays(ctx, s.db, org, OverviewDays)
}

// TaskCount is how many tasks of a project have a status.
type TaskCount struct {
	ProjectID string `json:"project_id" bun:"project_id"`
	Status    string `json:"status" bun:"status"`
	Count     int    `json:"count" bun:"count"`
}

// Glance is an organization at a glance (Overview).
type Glance struct {
	// Halted: the organization's or the platform's kill switch is on.
	Halted bool
	// AgentsByStatus counts the agents active, paused and banned.
	AgentsByStatus map[string]int
	// Tasks counts the open tasks, and those updated in the last 7 days,
	// per project and status.
	Tasks []TaskCount
	// PendingApprovals and Deferred are the tasks waiting for approval and
	// those deferred to people, oldest first (at most 50 each).
	PendingApprovals, Deferred []Task
	// Answered are the tasks resumed with an answer the agent that asked
	// has not read yet, oldest answer first (at most 50).
	Answered []Answered
	// ActiveAgents counts the agents seen in the last hour.
	ActiveAgents int
	// Days are the last OverviewDays days' tasks (TaskDays).
	Days []TaskDay
}

// Answered is a task resumed with an answer its agent has not read: By
// answered it at At, and may still change it (ChangeAnswer).
type Answered struct {
	Task Task
	By   string
	At   time.Time
}

// Overview is organization org at a glance.
func (s *Service) Overview(ctx context.Context, org string) (Glance, error) {
	g := Glance{AgentsByStatus: map[string]int{"active": 0, "paused": 0, "banned": 0}}
	var err error
	if g.Halted, err = s.ident.Halted(ctx, s.db, org); err != nil {
		return Glance{}, err
	}
	byStatus, err := s.st.agentsByStatus(ctx, org)
	if err != nil {
		return Glance{}, fmt.Errorf("board.overview: %w", err)
	}
	for _, c := range byStatus {
		g.AgentsByStatus[c.Status] = c.N
	}
	if g.ActiveAgents, err = s.st.activeAgents(ctx, org); err != nil {
		return Glance{}, err
	}
	if g.Tasks, err = s.st.taskCounts(ctx, org); err != nil {
		return Glance{}, err
	}
	if g.PendingApprovals, err = s.st.awaitingApproval(ctx, org); err != nil {
		return Glance{}, err
	}
	if g.Deferred, err = s.st.deferredToPeople(ctx, org); err != nil {
		return Glance{}, err
	}
	rows, err := s.st.answeredTasks(ctx, org)
	if err != nil {
		return Glance{}, fmt.Errorf("board.answeredTasks: %w", err)
	}
	for i := range rows {
		g.Answered = append(g.Answered, Answered{Task: rows[i].Task, By: rows[i].AnsweredBy, At: rows[i].AnsweredAt})
	}
	if g.Days, err = s.TaskDays(ctx, org); err != nil {
		return Glance{}, err
	}
	return g, nil
}

// Trace is everything the board knows of a task (Service.Trace).
type Trace struct {
	Task Task
	// Entries are its log entries, oldest first (at most 1000).
	Entries []ledger.Record
	// Mandates are the organization's mandates in its chains, by depth.
	Mandates []TraceMandate
	// Messages are its thread, oldest first.
	Messages []TraceMessage
}

// Trace is task id of organization org with its log entries, the
// organization's mandates in its chains and their ancestors, and its
// thread.
func (s *Service) Trace(ctx context.Context, org, id string) (Trace, error) {
	t, err := s.Task(ctx, nil, org, id)
	if err != nil {
		return Trace{}, err
	}
	tr := Trace{Task: *t}
	if tr.Entries, err = s.log.Entries(ctx, s.db, ledger.Filter{OrgID: org, TaskID: t.ID, Oldest: true, Limit: 1000}); err != nil {
		return Trace{}, err
	}
	ids := []string{t.MandateID}
	for _, id := range []*string{t.DelegatedMandateID, t.AssigneeMandateID} {
		if id != nil {
			ids = append(ids, *id)
		}
	}
	for _, e := range tr.Entries {
		ids = append(ids, e.MandateChain...)
	}
	if tr.Mandates, err = s.st.traceMandates(ctx, org, ids); err != nil {
		return Trace{}, err
	}
	if tr.Messages, err = s.st.traceMessages(ctx, org, t.ID); err != nil {
		return Trace{}, err
	}
	return tr, nil
}
