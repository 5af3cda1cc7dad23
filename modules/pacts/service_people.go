package pacts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// What people do to pacts through the Admin API (docs/pacts.md "People's
// side"). A person reaches every project of their organization; writes in
// the thread still need a seat, and the rest needs an owner or approver,
// which the Admin API's role gate and ident.Act check before these run.

// PersonAccess is where a person reaches pacts: every project of their
// organization, for reading and for writing. found, when set, is told the
// project of the pact a call reaches (Access.Found).
func (s *Service) PersonAccess(ctx context.Context, tx bun.IDB, org string, found func(string)) (Access, error) {
	prs, err := s.ident.ListProjects(ctx, tx, org)
	if err != nil {
		return Access{}, fmt.Errorf("pacts: read the projects of %s: %w", org, err)
	}
	ps := make([]string, 0, len(prs))
	for _, p := range prs {
		ps = append(ps, p.ID)
	}
	return Access{Read: ps, Write: ps, Found: found}, nil
}

// Answer kinds (pact_decisions.answer_kind).
const (
	AnswerChoice    = "choice"
	AnswerOwnWords  = "own_words"
	AnswerNotNeeded = "not_needed"
	// NotNeededText is what a "Not needed" answer stores.
	NotNeededText = "Not needed"
)

// answerOf is the answer a person gives by one of choice, their own words
// or notNeeded, as Answer takes it: exactly one of the three, or
// invalid_request. It is read before the person's act is, so a request
// that carries none, or several, is refused without an entry.
func answerOf(choice, words *string, notNeeded bool) (kind, text string, err error) {
	n := 0
	if choice != nil {
		n, kind, text = n+1, AnswerChoice, *choice
	}
	if words != nil {
		n, kind, text = n+1, AnswerOwnWords, *words
	}
	if notNeeded {
		n, kind, text = n+1, AnswerNotNeeded, NotNeededText
	}
	if n != 1 {
		return "", "", errs.E(errs.InvalidRequest, `answer with exactly one of {"choice": "…"}, {"answer": "…"} or {"not_needed": true}`)
	}
	return kind, text, nil
}

// PactAnswer is a person's answer as stored.
type PactAnswer struct {
	DecisionID string `json:"decision_id"`
	PactID     string `json:"pact_id"`
	Kind       string `json:"answer_kind" enum:"choice,own_words,not_needed"`
	Answer     string `json:"answer" doc:"Stored word for word, as sent"`
	AnsweredBy string `json:"answered_by"`
	Cursor     int64  `json:"cursor" doc:"The pact's feed after the answer"`
}

// Answer gives (or changes) a person's answer to decision: kind choice
// (text must be one of the options), own_words (text as written) or
// not_needed. The text is stored byte for byte. Once the raising agent has
// read the answer it is final: refused with forbidden.
func (s *Service) Answer(ctx context.Context, tx bun.IDB, a Actor, acc Access, decision, kind, text string) (PactAnswer, error) {
	if !validUUID(decision) {
		return PactAnswer{}, errs.E(errs.NotFound, "no decision %s in your organization", decision)
	}
	d, err := decisionToAnswer(ctx, tx, a.Org, decision)
	if err != nil {
		return PactAnswer{}, err
	}
	if d == nil || !slices.Contains(acc.Read, d.ProjectID) {
		return PactAnswer{}, errs.E(errs.NotFound, "no decision %s in your organization", decision)
	}
	if acc.Found != nil {
		acc.Found(d.ProjectID)
	}
	switch {
	case d.ClosedAt != nil:
		return PactAnswer{}, errs.E(errs.Forbidden, "pact %s is closed: it stays readable and accepts no writes", d.PactID)
	case d.ReadAt != nil:
		return PactAnswer{}, errs.E(errs.Forbidden, "decision %s: the agent has read the answer; post in the pact instead", decision)
	}
	switch kind {
	case AnswerChoice:
		if !slices.Contains(d.Options, text) {
			return PactAnswer{}, errs.E(errs.InvalidRequest, "choice must be one of the options, exactly as offered: %q",
				strings.Join(d.Options, `", "`))
		}
	case AnswerOwnWords:
		if strings.TrimSpace(text) == "" || utf8.RuneCountInString(text) > 4000 {
			return PactAnswer{}, errs.E(errs.InvalidRequest, "an answer in your own words is 1-4,000 characters")
		}
	case AnswerNotNeeded:
		text = NotNeededText
	default:
		return PactAnswer{}, errs.E(errs.InvalidRequest, "answer with a choice, your own words, or not_needed")
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: d.PactID, Kind: "answer", Ref: decision, Actor: a.String(), Excerpt: text})
	if err != nil {
		return PactAnswer{}, err
	}
	// The trigger of migration 017 accepts an answer only on this path.
	if err := takeAnsweringPath(ctx, tx); err != nil {
		return PactAnswer{}, err
	}
	err = answerDecision(ctx, tx, decision, kind, text, a.Human, s.ident.Now(), pos.ID)
	if db.PgCode(err) == db.RestrictViolation {
		return PactAnswer{}, errs.E(errs.Forbidden, "decision %s: the agent has read the answer; post in the pact instead", decision)
	}
	if err != nil {
		return PactAnswer{}, db.Refusal(err, "the answer to decision "+decision)
	}
	return PactAnswer{DecisionID: decision, PactID: d.PactID, Kind: kind, Answer: text, AnsweredBy: a.Human, Cursor: pos.Seq}, nil
}

// ruled reads pact id for a person's change to it (close, seats): readable
// and open.
func (s *Service) ruled(ctx context.Context, tx bun.IDB, a Actor, acc Access, id string) (*pactRow, error) {
	p, err := s.reach(ctx, tx, a, acc, id, true)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(acc.Write, p.ProjectID) {
		return nil, errs.E(errs.Forbidden, "changing pact %s needs a person of its organization", p.ID)
	}
	if p.ClosedAt != nil {
		return nil, errs.E(errs.Forbidden, "pact %s is closed: it stays readable and accepts no writes", p.ID)
	}
	return p, nil
}

// Close closes pact: it stays readable and accepts no writes, and no
// longer counts against the project's open-pact limit.
func (s *Service) Close(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string) (int64, error) {
	p, err := s.ruled(ctx, tx, a, acc, pact)
	if err != nil {
		return 0, err
	}
	if err := markClosed(ctx, tx, p.ID, a.String(), s.ident.Now()); err != nil {
		return 0, err
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "pact", Ref: "closed", Actor: a.String(), Excerpt: "closed"})
	return pos.Seq, err
}

// OneVoice is the warning a removal answers with when fewer than two
// joined seats remain.
const OneVoice = "a pact with one voice is just a note"

// SeatRemoved is a removed seat.
type SeatRemoved struct {
	Cursor  int64  `json:"cursor" doc:"The pact's feed after the removal"`
	Live    int    `json:"live_seats" doc:"Joined seats left"`
	Warning string `json:"warning,omitempty" doc:"Set when fewer than two joined seats remain: a pact with one voice is just a note"`
}

// RemoveSeat revokes seat key of pact: it writes nothing more, and what it
// wrote stays.
func (s *Service) RemoveSeat(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact, key string) (SeatRemoved, error) {
	p, err := s.ruled(ctx, tx, a, acc, pact)
	if err != nil {
		return SeatRemoved{}, err
	}
	removed, err := removeSeat(ctx, tx, p.ID, key, a.String(), s.ident.Now())
	if err != nil {
		return SeatRemoved{}, err
	}
	if !removed {
		return SeatRemoved{}, errs.E(errs.NotFound, "pact %s has no seat %s (or it was removed already)", p.ID, key)
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "seat", Ref: key, Actor: a.String(), Excerpt: key + " removed"})
	if err != nil {
		return SeatRemoved{}, err
	}
	out := SeatRemoved{Cursor: pos.Seq}
	if out.Live, err = liveSeats(ctx, tx, p.ID); err != nil {
		return SeatRemoved{}, err
	}
	if out.Live < 2 {
		out.Warning = OneVoice
	}
	return out, nil
}

// SeatFor adds a seat waiting for in's agent or person (of a's
// organization) to pact, on a person's authority: unlike Invite, the
// person need not sit in the pact. addSeat checks the agent or person.
func (s *Service) SeatFor(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string, in SeatInput) (int64, error) {
	p, err := s.ruled(ctx, tx, a, acc, pact)
	if err != nil {
		return 0, err
	}
	if err := s.addSeat(ctx, tx, a, p, in, false); err != nil {
		return 0, err
	}
	key := in.Key
	if key == "" {
		key = "@" + in.Agent + in.Human
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "seat", Ref: key, Actor: a.String(), Excerpt: "invited " + key})
	return pos.Seq, err
}
