package pacts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
)

// PactView is a pact as get_pact answers it.
type PactView struct {
	ID           string         `json:"id" jsonschema:"The pact's id."`
	Name         string         `json:"name" jsonschema:"Its name."`
	Purpose      string         `json:"purpose" jsonschema:"What the participants are working on."`
	ProjectID    string         `json:"project_id" jsonschema:"The project it lives in."`
	CreatedBy    string         `json:"created_by" jsonschema:"Who started it."`
	CreatedAt    string         `json:"created_at" jsonschema:"When."`
	ClosedAt     *string        `json:"closed_at,omitempty" jsonschema:"When a person closed it; a closed pact accepts no writes."`
	Rules        string         `json:"rules" jsonschema:"The frozen rules section at the top of the page."`
	Seats        []SeatView     `json:"seats" jsonschema:"The participants and their handshake notes."`
	Sections     []SectionView  `json:"sections" jsonschema:"The zones, one per seat (with since: only those written since)."`
	Messages     []MessageView  `json:"messages" jsonschema:"The thread, oldest first: the latest 50, or (with since) everything since."`
	MessageCount int            `json:"message_count" jsonschema:"How many messages the thread holds in all."`
	Decisions    []DecisionView `json:"decisions" jsonschema:"Every open decision, and those raised or answered since."`
	Cursor       int64          `json:"cursor" jsonschema:"Where the pact's feed is now: pass it as since next time to get only what is new."`
}

// Get reads pact for a: everything, or what changed after since (a number
// in the organization's feed, as every cursor a hands back). Reading
// moves a's read cursor, and marks read the answers to decisions a raised,
// after which a person can no longer change them.
func (s *Service) Get(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string, since int64) (*PactView, error) {
	p, err := s.reach(ctx, tx, a, acc, pact, false)
	if err != nil {
		return nil, err
	}
	v := &PactView{ID: p.ID, Name: p.Name, Purpose: p.Purpose, ProjectID: p.ProjectID, CreatedBy: p.CreatedBy,
		CreatedAt: iso(p.CreatedAt), Rules: p.Rules}
	if p.ClosedAt != nil {
		v.ClosedAt = new(iso(*p.ClosedAt))
	}
	rows, err := seats(ctx, tx, p.ID)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		v.Seats = append(v.Seats, r.view(a))
	}
	if v.Sections, err = sections(ctx, tx, p.ID, p.OrgID, since > 0, since); err != nil {
		return nil, err
	}
	if err := s.refusedBeside(ctx, tx, p, v.Sections); err != nil {
		return nil, err
	}
	limit := 50
	if since > 0 {
		limit = 500
	}
	if v.Messages, err = messages(ctx, tx, p.ID, p.OrgID, since, limit); err != nil {
		return nil, err
	}
	if v.Decisions, err = decisions(ctx, tx, p.ID, p.OrgID, since); err != nil {
		return nil, err
	}
	var head int64
	if v.MessageCount, head, v.Cursor, err = threadHead(ctx, tx, p.ID); err != nil {
		return nil, err
	}
	return v, markRead(ctx, tx, a, p.ID, head)
}

// Latest reads pact for a as Get does with no since (its latest page of
// thread), and the cursor of the thread's older page, 0 when there is
// none: what a person's Admin API and pact-admin show of a pact.
func (s *Service) Latest(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string) (*PactView, int64, error) {
	v, err := s.Get(ctx, tx, a, acc, pact, 0)
	if err != nil {
		return nil, 0, err
	}
	var before int64
	if len(v.Messages) > 0 && v.MessageCount > len(v.Messages) {
		before = v.Messages[0].Cursor
	}
	return v, before, nil
}

// refusedBeside puts beside each section the writes aimed at it that the
// board refused, read from the pact's record (the project's log).
func (s *Service) refusedBeside(ctx context.Context, tx bun.IDB, p *pactRow, secs []SectionView) error {
	if len(secs) == 0 {
		return nil
	}
	filter, _ := json.Marshal(map[string]string{"pact_id": p.ID})
	recs, err := s.log.Entries(ctx, tx, ledger.Filter{OrgID: p.OrgID, ProjectID: p.ProjectID, Refused: true,
		PayloadContains: filter, Limit: 200})
	if err != nil {
		return fmt.Errorf("pacts: read the refusals of %s: %w", p.ID, err)
	}
	at := map[string]int{}
	for i, sec := range secs {
		at[sec.Key] = i
	}
	for _, r := range recs {
		if r.Action != ToolUpdateSection && r.Action != AdminSectionAction {
			continue
		}
		var aim struct {
			Key string `json:"key"`
		}
		if json.Unmarshal(r.Payload, &aim) != nil || aim.Key == "" {
			continue
		}
		if i, ok := at[strings.TrimSpace(aim.Key)]; ok {
			secs[i].Refused = append(secs[i].Refused, Refused{By: r.Actor, At: iso(r.At), Code: r.Outcome})
		}
	}
	return nil
}
