package pacts

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

var (
	prefixRe = regexp.MustCompile(`^[A-Z]{1,4}$`)
	keyRe    = regexp.MustCompile(`^@[a-z0-9][a-z0-9_-]{0,39}$`)
)

// SeatInput is a seat to make: an agent's (Agent) or a person's (Human).
type SeatInput struct {
	Agent, Human string
	// Key is the seat's key; "@" and the agent's or person's id by default.
	Key string
	// DisplayName defaults to the id.
	DisplayName string
	// Prefix numbers the seat's messages: 1-4 capital letters, unique in
	// the pact.
	Prefix string
}

// NewPact is a pact to create; Creator is the creating actor's own seat.
type NewPact struct {
	ProjectID, Name, Purpose, Rules string
	Creator                         SeatInput
	Invite                          []SeatInput
}

// Create makes a pact in in.ProjectID with a's seat first (joined) and a
// seat waiting for each invitee, answered for by owner: the person who
// starts it, whom the Admin API's role gate let through as an owner or
// approver. An agent's pact is answered for by the agent's person, who
// must be an owner or approver (ruler); for an agent owner is not read.
// The call's log entry lands on in.ProjectID's chain (Access.Found).
func (s *Service) Create(ctx context.Context, tx bun.IDB, a Actor, acc Access, owner string, in NewPact) (string, Written, error) {
	if acc.Found != nil {
		acc.Found(in.ProjectID)
	}
	if a.Agent != "" {
		var err error
		if owner, err = s.ruler(ctx, tx, a.Agent, "starting a pact"); err != nil {
			return "", Written{}, err
		}
	}
	if !slices.Contains(acc.Write, in.ProjectID) {
		if slices.Contains(acc.Read, in.ProjectID) {
			return "", Written{}, errs.E(errs.ScopeExceeded, "creating a pact needs pact.write@project:%s", in.ProjectID)
		}
		return "", Written{}, errs.E(errs.ProjectMismatch, "project %s is not one you may write pacts in (%s)", in.ProjectID, list(acc.Write))
	}
	if err := validPact(in); err != nil {
		return "", Written{}, err
	}
	if len(in.Invite)+1 > MaxSeats {
		return "", Written{}, errs.E(errs.InvalidRequest, "a pact has at most %d seats; %d were asked for", MaxSeats, len(in.Invite)+1)
	}
	if err := s.openCap(ctx, tx, a.Org, in.ProjectID); err != nil {
		return "", Written{}, err
	}
	id, err := insertPact(ctx, tx, a.Org, owner, a.String(), in)
	if err != nil {
		return "", Written{}, err
	}
	p := &pactRow{ID: id, OrgID: a.Org, ProjectID: in.ProjectID}
	creator := in.Creator
	if a.Agent != "" {
		creator.Agent, creator.Human = a.Agent, ""
	} else {
		creator.Agent, creator.Human = "", a.Human
	}
	if err := s.addSeat(ctx, tx, a, p, creator, true); err != nil {
		return "", Written{}, err
	}
	for _, inv := range in.Invite {
		if err := s.addSeat(ctx, tx, a, p, inv, false); err != nil {
			return "", Written{}, err
		}
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: id, Kind: "pact", Ref: "created", Actor: a.String(), Excerpt: in.Name})
	if err != nil {
		return "", Written{}, err
	}
	if err := startCursors(ctx, tx, id, pos.ID); err != nil {
		return "", Written{}, err
	}
	return id, Written{Cursor: pos.Seq, News: []feedItem{}}, nil
}

func validPact(in NewPact) error {
	switch n := utf8.RuneCountInString(strings.TrimSpace(in.Name)); {
	case n == 0 || utf8.RuneCountInString(in.Name) > 120:
		return errs.E(errs.InvalidRequest, "a pact's name is 1-120 characters")
	case strings.TrimSpace(in.Purpose) == "" || utf8.RuneCountInString(in.Purpose) > 4000:
		return errs.E(errs.InvalidRequest, "a pact's purpose is 1-4,000 characters: what the participants are working on")
	case utf8.RuneCountInString(in.Rules) > 8000:
		return errs.E(errs.InvalidRequest, "a pact's rules are at most 8,000 characters")
	}
	return nil
}

// openCap refuses a pact past the organization's open-pact limit in the
// project; closed pacts do not count. Creations in one project serialise on
// an advisory lock, so two at once cannot both take the last slot; the
// count is a statement of its own, so its snapshot is taken after the lock.
func (s *Service) openCap(ctx context.Context, tx bun.IDB, org, project string) error {
	if err := lockOpenPacts(ctx, tx, project); err != nil {
		return err
	}
	open, limit, err := openPacts(ctx, tx, org, project, DefaultOpenCap)
	if err != nil {
		return err
	}
	if open >= limit {
		return errs.E(errs.LimitExceeded, "project %s has %d open pacts, the organization's limit: close one first (closed pacts do not count)", project, open)
	}
	return nil
}

// Invite adds a seat waiting for in's agent or person; a must sit in the
// pact.
func (s *Service) Invite(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string, in SeatInput) (Written, error) {
	p, seat, err := s.writable(ctx, tx, a, acc, pact)
	if err != nil {
		return Written{}, err
	}
	if err := s.addSeat(ctx, tx, a, p, in, false); err != nil {
		return Written{}, err
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "seat", Ref: in.Key, SeatKey: &seat.Key, Actor: a.String(), Excerpt: "invited " + in.Key})
	if err != nil {
		return Written{}, err
	}
	return wrote(ctx, tx, seat, pos)
}

// addSeat adds in's seat to p, joined when joined is set (the creator's).
// An agent must be registered in the pact's project: a pact reaches
// another agent only in a project both share.
func (s *Service) addSeat(ctx context.Context, tx bun.IDB, a Actor, p *pactRow, in SeatInput, joined bool) error {
	if in.Agent == "" && in.Human == "" && strings.HasPrefix(in.Key, "@") {
		in.Agent = strings.TrimPrefix(in.Key, "@")
	}
	id := in.Agent + in.Human
	if in.Key == "" {
		in.Key = "@" + id
	}
	if in.DisplayName == "" {
		in.DisplayName = id
	}
	switch {
	case in.Agent != "" && in.Human != "":
		return errs.E(errs.InvalidRequest, "seat %s: name an agent (agent_id) or a person (human_id), not both", in.Key)
	case !keyRe.MatchString(in.Key):
		return errs.E(errs.InvalidRequest, "seat key %q must be @ and 1-40 characters of a-z, 0-9, '_' or '-'", in.Key)
	case !prefixRe.MatchString(in.Prefix):
		return errs.E(errs.InvalidRequest, "seat %s: a message prefix is 1-4 capital letters (A-Z), not %q", in.Key, in.Prefix)
	case utf8.RuneCountInString(in.DisplayName) > 80:
		return errs.E(errs.InvalidRequest, "seat %s: a display name is at most 80 characters", in.Key)
	}
	if in.Agent != "" {
		ag, err := s.ident.GetAgent(ctx, tx, in.Agent, p.OrgID)
		if errs.CodeOf(err) == errs.NotFound {
			return errs.E(errs.NotFound, "no agent %s to seat as %s in your organization", in.Agent, in.Key)
		}
		if err != nil {
			return err
		}
		if !slices.Contains(ag.Projects, p.ProjectID) {
			return errs.E(errs.ProjectMismatch, "agent %s is not in project %s, the pact's: a pact reaches another agent only "+
				"in a project both share", in.Agent, p.ProjectID)
		}
	} else if err := s.seatablePerson(ctx, tx, p.OrgID, in.Human); err != nil {
		return err
	}
	// Seat changes of one pact serialise on its row; the seats are read in
	// a statement of its own after the lock, so the count is current.
	if err := lockPact(ctx, tx, p.ID); err != nil {
		return err
	}
	taken, err := takenSeats(ctx, tx, p.ID)
	if err != nil {
		return err
	}
	live := 0
	for _, t := range taken {
		switch {
		case t.Key == in.Key:
			return errs.E(errs.IDTaken, "pact %s already has a seat %s", p.ID, in.Key)
		case t.Prefix == in.Prefix:
			return errs.E(errs.IDTaken, "prefix %s is taken in pact %s (by %s): two seats numbering alike would make every number ambiguous",
				in.Prefix, p.ID, t.Key)
		}
		if t.Live {
			live++
		}
	}
	if live >= MaxSeats {
		return errs.E(errs.LimitExceeded, "pact %s has %d seats, the most a pact has", p.ID, MaxSeats)
	}
	var joinedAt *time.Time
	if joined {
		joinedAt = new(s.ident.Now())
	}
	if err := insertSeat(ctx, tx, p.ID, a.String(), in, joinedAt); err != nil {
		return db.Refusal(err, fmt.Sprintf("seat %s in pact %s", in.Key, p.ID))
	}
	return nil
}

// seatablePerson refuses id unless it names an enabled person of org. Ids
// are board-wide, so another organization's person, whatever their state,
// answers in the very words of an id nobody holds: any difference would
// tell who exists elsewhere (docs/security.md, issue 29 finding 3; SEC-017).
// The organization's own disabled person is refused in words of their own.
func (s *Service) seatablePerson(ctx context.Context, tx bun.IDB, org, id string) error {
	h, err := s.ident.GetPerson(ctx, tx, id)
	if errs.CodeOf(err) == errs.NotFound || err == nil && h.OrgID != org {
		return errs.E(errs.NotFound, "no person %s to seat in your organization", id)
	}
	if err != nil {
		return fmt.Errorf("pacts: read person %s: %w", id, err)
	}
	if h.DisabledAt != nil {
		return errs.E(errs.Forbidden, "person %s is disabled: an owner enables them again before they can take a seat", id)
	}
	return nil
}

// Join takes the seat waiting for a in pact.
func (s *Service) Join(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string) (Written, error) {
	p, err := s.reach(ctx, tx, a, acc, pact, false)
	if err != nil {
		return Written{}, err
	}
	if !slices.Contains(acc.Write, p.ProjectID) {
		return Written{}, errs.E(errs.ScopeExceeded, "joining pact %s needs pact.write@project:%s", p.ID, p.ProjectID)
	}
	if p.ClosedAt != nil {
		return Written{}, errs.E(errs.Forbidden, "pact %s is closed: it stays readable and accepts no writes", p.ID)
	}
	seat, err := seatOf(ctx, tx, p.ID, a, true)
	switch {
	case err != nil:
		return Written{}, err
	case seat == nil:
		return Written{}, errs.E(errs.Forbidden, "no seat waits for %s in pact %s: a participant invites you first", a, p.ID)
	case seat.RemovedAt != nil:
		return Written{}, errs.E(errs.Forbidden, "your seat %s in pact %s was removed", seat.Key, p.ID)
	case seat.JoinedAt != nil:
		return Written{}, errs.E(errs.InvalidRequest, "you already sit in pact %s as %s", p.ID, seat.Key)
	}
	if err := joinSeat(ctx, tx, p.ID, seat.Key, s.ident.Now()); err != nil {
		return Written{}, err
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "seat", Ref: seat.Key, SeatKey: &seat.Key, Actor: a.String(), Excerpt: seat.Key + " joined"})
	if err != nil {
		return Written{}, err
	}
	return wrote(ctx, tx, seat, pos)
}
