package pacts

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// PactLatest is a pact's latest message, for the Jobs list.
type PactLatest struct {
	Number string    `json:"number" example:"W-003"`
	Seat   string    `json:"seat" example:"@wanda"`
	Author string    `json:"author" example:"agent:wanda" doc:"agent:<id> or human:<id>"`
	At     time.Time `json:"at"`
}

// PactJob is one pact in the people's Jobs list.
type PactJob struct {
	ID            string      `json:"id"`
	Name          string      `json:"name"`
	ProjectID     string      `json:"project_id"`
	Purpose       string      `json:"purpose" doc:"The first two lines of its purpose"`
	Seats         []SeatView  `json:"seats" nullable:"false"`
	PactLatest    *PactLatest `json:"latest_message" doc:"null while the thread is empty"`
	OpenDecisions int         `json:"open_decisions" doc:"Decisions waiting for a person"`
	Closed        bool        `json:"closed"`
	CreatedAt     time.Time   `json:"created_at"`
	// Stuck is set when the webhook of an agent seated here was switched
	// off after five failed deliveries; StuckSentence says which job, which
	// address and what to do (Wake it: POST /agents/{id}/pact-delivery/wake).
	Stuck         bool   `json:"stuck" doc:"An agent seated here stopped hearing of it: its webhook was switched off"`
	StuckSentence string `json:"stuck_sentence,omitempty" doc:"Which job, which address did not answer, and what to do"`
	// StuckAgents are the seated agents whose webhooks were switched off,
	// each the agent_id that Wake it (POST /agents/{agent_id}/pact-delivery/wake) takes.
	StuckAgents []string `json:"stuck_agents,omitempty" doc:"The seated agents whose pact webhooks were switched off: what Wake it takes"`
}

// Jobs lists the pacts in the projects of acc.Read (project, when set,
// alone): open ones first, the most recently active first.
func (s *Service) Jobs(ctx context.Context, tx bun.IDB, a Actor, acc Access, project string) ([]PactJob, error) {
	rows, err := pactJobs(ctx, tx, a.Org, acc.Read, project)
	if err != nil {
		return nil, err
	}
	stuck, err := stuckSentences(ctx, tx, a.Org)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	all, err := seatsOf(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]PactJob, 0, len(rows))
	for _, r := range rows {
		j := PactJob{ID: r.ID, Name: r.Name, ProjectID: r.ProjectID, Purpose: firstLines(r.Purpose, 2), OpenDecisions: r.OpenDecisions,
			Closed: r.Closed, CreatedAt: r.CreatedAt.UTC(), Seats: []SeatView{}}
		if r.Number != nil {
			j.PactLatest = &PactLatest{Number: *r.Number, Seat: *r.Seat, Author: *r.Author, At: r.At.UTC()}
		}
		for _, x := range all[r.ID] {
			j.Seats = append(j.Seats, x.view(a))
			if x.AgentID != nil && x.RemovedAt == nil && stuck[*x.AgentID] != "" {
				if !j.Stuck {
					j.Stuck, j.StuckSentence = true, stuck[*x.AgentID]
				}
				j.StuckAgents = append(j.StuckAgents, *x.AgentID)
			}
		}
		out = append(out, j)
	}
	return out, nil
}

// ThreadPage is a page of a pact's thread, oldest first.
type ThreadPage struct {
	Messages []MessageView `json:"messages" nullable:"false" doc:"Oldest first"`
	// Before is the cursor of the next (older) page, 0 when there is none:
	// the oldest message's number in the organization's feed.
	Before int64 `json:"next_before" doc:"Pass as before for the older page; 0 when this is the oldest"`
}

// Thread reads a page of pact's thread: the limit messages before cursor
// before (a number in the organization's feed; 0: the latest).
func (s *Service) Thread(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string, before int64, limit int) (ThreadPage, error) {
	p, err := s.reach(ctx, tx, a, acc, pact, false)
	if err != nil {
		return ThreadPage{}, err
	}
	upto := int64(-1) // the latest
	if before > 0 {
		if upto, err = feedBound(ctx, tx, p.OrgID, before-1); err != nil {
			return ThreadPage{}, err
		}
	}
	return threadPage(ctx, tx, p.ID, upto, limit)
}

// threadPage reads the limit messages of pact up to the feed row upto (an
// id; -1: the latest), and the cursor of the older page when there is one.
func threadPage(ctx context.Context, tx bun.IDB, pact string, upto int64, limit int) (ThreadPage, error) {
	ms, err := threadUpto(ctx, tx, pact, upto, limit+1)
	if err != nil {
		return ThreadPage{}, err
	}
	out := ThreadPage{Messages: []MessageView{}}
	if len(ms) > limit {
		ms = ms[1:]
		out.Before = ms[0].Cursor
	}
	out.Messages = append(out.Messages, ms...)
	return out, nil
}
