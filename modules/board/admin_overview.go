package board

import (
	"context"
	"time"

	"github.com/pactboard/pact/core/kernel"
)

// Overview is the organization at a glance.
type Overview struct {
	Halted           bool           `json:"halted" doc:"The organization's or the platform's kill switch is on"`
	AgentsByStatus   map[string]int `json:"agents_by_status" doc:"How many agents are active, paused, banned"`
	Tasks            []TaskCount    `json:"tasks" nullable:"false" doc:"Open tasks, and tasks updated in the last 7 days, per project and status"`
	PendingApprovals []AdminTask    `json:"pending_approvals" nullable:"false" doc:"Tasks waiting for approval, oldest first (at most 50)"`
	Deferred         []AdminTask    `json:"deferred" nullable:"false" doc:"Tasks deferred to people, oldest first (at most 50)"`
	Answered         []AnsweredTask `json:"answered" nullable:"false" doc:"Tasks resumed with an answer the agent that asked has not read yet, oldest first (at most 50): the answer may still be changed"`
	ActiveAgents     int            `json:"active_agents" doc:"Agents seen in the last hour"`
	Days             []TaskDay      `json:"days" nullable:"false" doc:"The last 14 days (UTC), oldest first: tasks completed, failed, and still waiting on people, per day"`
}

// AnsweredTask is a task resumed with an answer its agent has not read.
type AnsweredTask struct {
	Task       AdminTask `json:"task"`
	AnsweredBy string    `json:"answered_by" doc:"The person who answered"`
	AnsweredAt time.Time `json:"answered_at"`
}

type overviewOut struct{ Body Overview }

func (m *Module) overview(ctx context.Context, _ *struct{}) (*overviewOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	g, err := m.svc.Overview(ctx, p.OrgID)
	if err != nil {
		return nil, err
	}
	o := Overview{Halted: g.Halted, AgentsByStatus: g.AgentsByStatus, Tasks: g.Tasks, PendingApprovals: adminTasks(g.PendingApprovals),
		Deferred: adminTasks(g.Deferred), Answered: make([]AnsweredTask, 0, len(g.Answered)), ActiveAgents: g.ActiveAgents,
		Days: g.Days}
	for _, a := range g.Answered {
		o.Answered = append(o.Answered, AnsweredTask{Task: adminTask(&a.Task), AnsweredBy: a.By, AnsweredAt: a.At})
	}
	return &overviewOut{Body: o}, nil
}
