package board

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// TraceMandate is a mandate link in one of a task's chains.
type TraceMandate struct {
	ID              string          `json:"id" bun:"id"`
	ParentID        *string         `json:"parent_id" bun:"parent_id"`
	IssuerKind      string          `json:"issuer_kind" bun:"issuer_kind" enum:"human,agent"`
	Issuer          string          `json:"issuer" bun:"issuer"`
	Holder          string          `json:"holder" bun:"holder"`
	Scope           []string        `json:"scope" nullable:"false" bun:"scope,array"`
	Limits          json.RawMessage `json:"limits" bun:"limits,type:jsonb"`
	DelegationsLeft int             `json:"delegations_left" bun:"delegations_left"`
	Depth           int             `json:"depth" bun:"depth"`
	ExpiresAt       time.Time       `json:"expires_at" bun:"expires_at"`
	RevokedAt       *time.Time      `json:"revoked_at" bun:"revoked_at"`
	CreatedAt       time.Time       `json:"created_at" bun:"created_at"`
}

// TraceMessage is a message on a task's thread.
type TraceMessage struct {
	ID        int64      `json:"id" bun:"id"`
	FromAgent *string    `json:"from_agent" bun:"from_agent"`
	FromHuman *string    `json:"from_human" bun:"from_human"`
	ToAgent   *string    `json:"to_agent" bun:"to_agent" doc:"null: to the organization's people"`
	Body      string     `json:"body" bun:"body"`
	CreatedAt time.Time  `json:"created_at" bun:"created_at"`
	ReadAt    *time.Time `json:"read_at" bun:"read_at"`
}

// TaskTrace is everything the board knows of a task.
type TaskTrace struct {
	Task     AdminTask       `json:"task"`
	Entries  []ledger.Record `json:"entries" nullable:"false" doc:"Its log entries, oldest first (at most 1000)"`
	Mandates []TraceMandate  `json:"mandates" nullable:"false" doc:"The organization's mandates in its chains, by depth"`
	Messages []TraceMessage  `json:"messages" nullable:"false" doc:"Its thread, oldest first"`
}

type traceOut struct{ Body TaskTrace }

func (m *Module) traceTask(ctx context.Context, in *taskIDIn) (*traceOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	t, err := m.svc.Task(ctx, nil, p.OrgID, in.TaskID)
	if err != nil {
		return nil, err
	}
	tr := TaskTrace{Task: adminTask(t), Mandates: []TraceMandate{}, Messages: []TraceMessage{}}
	if tr.Entries, err = m.log.Entries(ctx, m.db, ledger.Filter{OrgID: p.OrgID, TaskID: t.ID, Oldest: true, Limit: 1000}); err != nil {
		return nil, err
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
	if tr.Mandates, err = m.st.traceMandates(ctx, p.OrgID, ids); err != nil {
		return nil, err
	}
	if tr.Messages, err = m.st.traceMessages(ctx, p.OrgID, t.ID); err != nil {
		return nil, err
	}
	return &traceOut{Body: tr}, nil
}

// TaskCount is how many tasks of a project have a status.
type TaskCount struct {
	ProjectID string `json:"project_id" bun:"project_id"`
	Status    string `json:"status" bun:"status"`
	Count     int    `json:"count" bun:"count"`
}

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
	o := Overview{AgentsByStatus: map[string]int{"active": 0, "paused": 0, "banned": 0}}
	if o.Halted, err = m.ident.Halted(ctx, m.db, p.OrgID); err != nil {
		return nil, err
	}
	byStatus, err := m.st.agentsByStatus(ctx, p.OrgID)
	if err != nil {
		return nil, fmt.Errorf("board.overview: %w", err)
	}
	for _, s := range byStatus {
		o.AgentsByStatus[s.Status] = s.N
	}
	if o.ActiveAgents, err = m.st.activeAgents(ctx, p.OrgID); err != nil {
		return nil, err
	}
	if o.Tasks, err = m.st.taskCounts(ctx, p.OrgID); err != nil {
		return nil, err
	}
	list := func(ts []Task, err error) ([]AdminTask, error) {
		if err != nil {
			return nil, err
		}
		out := make([]AdminTask, 0, len(ts))
		for i := range ts {
			out = append(out, adminTask(&ts[i]))
		}
		return out, nil
	}
	if o.PendingApprovals, err = list(m.st.awaitingApproval(ctx, p.OrgID)); err != nil {
		return nil, err
	}
	if o.Deferred, err = list(m.st.deferredToPeople(ctx, p.OrgID)); err != nil {
		return nil, err
	}
	if o.Answered, err = m.svc.answeredTasks(ctx, p.OrgID); err != nil {
		return nil, err
	}
	if o.Days, err = m.svc.TaskDays(ctx, p.OrgID); err != nil {
		return nil, err
	}
	return &overviewOut{Body: o}, nil
}

// answeredTasks lists the organization's tasks whose answer may still be
// changed (unreadAnswerOf), oldest answer first.
func (s *Service) answeredTasks(ctx context.Context, org string) ([]AnsweredTask, error) {
	rows, err := s.st.answeredTasks(ctx, org)
	if err != nil {
		return nil, fmt.Errorf("board.answeredTasks: %w", err)
	}
	out := make([]AnsweredTask, 0, len(rows))
	for i := range rows {
		out = append(out, AnsweredTask{Task: adminTask(&rows[i].Task), AnsweredBy: rows[i].AnsweredBy, AnsweredAt: rows[i].AnsweredAt})
	}
	return out, nil
}
