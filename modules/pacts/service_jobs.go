package pacts

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
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
	var rows []struct {
		ID            string     `bun:"id"`
		Name          string     `bun:"name"`
		ProjectID     string     `bun:"project_id"`
		Purpose       string     `bun:"purpose"`
		OpenDecisions int        `bun:"open_decisions"`
		Closed        bool       `bun:"closed"`
		CreatedAt     time.Time  `bun:"created_at"`
		Number        *string    `bun:"number"`
		Seat          *string    `bun:"seat_key"`
		Author        *string    `bun:"author"`
		At            *time.Time `bun:"at"`
	}
	err := tx.NewRaw(`SELECT p.id::text AS id, p.name, p.project_id, p.purpose, p.closed_at IS NOT NULL AS closed, p.created_at,
			(SELECT count(*) FROM pact_decisions d WHERE d.pact_id = p.id AND d.answer IS NULL) AS open_decisions,
			l.number, l.seat_key, l.author, l.created_at AS at
		FROM pacts p
		LEFT JOIN LATERAL (SELECT number, seat_key, author, created_at FROM pact_messages m WHERE m.pact_id = p.id
			ORDER BY feed_id DESC LIMIT 1) l ON true
		WHERE p.org_id = ? AND p.project_id = ANY(?) AND (? = '' OR p.project_id = ?)
		ORDER BY p.closed_at IS NOT NULL, coalesce(l.created_at, p.created_at) DESC LIMIT 500`,
		a.Org, pgdialect.Array(acc.Read), project, project).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pacts: list the pacts of %s: %w", a.Org, err)
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
// id; -1: the latest).
func threadPage(ctx context.Context, tx bun.IDB, pact string, upto int64, limit int) (ThreadPage, error) {
	var ms []MessageView
	err := tx.NewRaw(`SELECT * FROM (SELECT `+messageColumns+` FROM pact_messages m JOIN pact_feed f ON f.id = m.feed_id
		WHERE m.pact_id = ? AND (? < 0 OR m.feed_id <= ?) ORDER BY m.feed_id DESC LIMIT ?) m ORDER BY feed_id`,
		pact, upto, upto, limit+1).Scan(ctx, &ms)
	if err != nil {
		return ThreadPage{}, fmt.Errorf("pacts: read the thread of %s: %w", pact, err)
	}
	out := ThreadPage{Messages: []MessageView{}}
	if len(ms) > limit {
		ms = ms[1:]
		out.Before = ms[0].Cursor
	}
	for i := range ms {
		ms[i].At = iso(ms[i].CreatedAt)
	}
	out.Messages = append(out.Messages, ms...)
	return out, nil
}
