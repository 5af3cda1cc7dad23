package pacts

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

var numberRe = regexp.MustCompile(`^[A-Z]{1,4}-[0-9]{3,}$`)

// Message is a message to post.
type Message struct {
	Body string
	// ReplyTo is the number of the message this answers ("W-001"), or "".
	ReplyTo string
	// Mark, with ReplyTo naming one of the actor's own messages, sets that
	// message's status: "done" or "superseded". It is the only change a
	// message ever takes, and only its author makes it.
	Mark string
}

// Posted is a posted message's number with what every write answers.
type Posted struct {
	Number string `json:"number" jsonschema:"The message's permanent number, e.g. W-003."`
	Written
}

// Post appends a's message to the pact's thread under its seat's next
// number.
func (s *Service) Post(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact string, m Message) (Posted, error) {
	if strings.TrimSpace(m.Body) == "" || utf8.RuneCountInString(m.Body) > 20000 {
		return Posted{}, errs.E(errs.InvalidRequest, "a message is 1-20,000 characters")
	}
	if m.ReplyTo != "" && !numberRe.MatchString(m.ReplyTo) {
		return Posted{}, errs.E(errs.InvalidRequest, "reply_to is a message number such as W-001, not %q", m.ReplyTo)
	}
	if m.Mark != "" && (m.Mark != "done" && m.Mark != "superseded" || m.ReplyTo == "") {
		return Posted{}, errs.E(errs.InvalidRequest, "mark is done or superseded, and needs reply_to naming your own message")
	}
	p, seat, err := s.writable(ctx, tx, a, acc, pact)
	if err != nil {
		return Posted{}, err
	}
	if m.ReplyTo != "" {
		author, found, err := messageAuthor(ctx, tx, p.ID, m.ReplyTo)
		if err != nil {
			return Posted{}, err
		}
		if !found {
			return Posted{}, errs.E(errs.NotFound, "pact %s has no message %s to reply to", p.ID, m.ReplyTo)
		}
		if m.Mark != "" && author != a.String() {
			return Posted{}, errs.E(errs.Forbidden, "%s is %s's message: only its author changes its status; reply to it instead", m.ReplyTo, author)
		}
	}
	number := fmt.Sprintf("%s-%03d", seat.Prefix, seat.NextNumber)
	pos, err := postMessage(ctx, tx, seat, feedItem{PactID: p.ID, Kind: "message", Ref: number, SeatKey: &seat.Key, Actor: a.String(), Excerpt: m.Body},
		number, m.Body, m.ReplyTo, m.Mark)
	if err != nil {
		return Posted{}, err
	}
	w, err := wrote(ctx, tx, seat, pos)
	return Posted{Number: number, Written: w}, err
}

// RulesKey names the frozen rules section at the top of a pact.
const RulesKey = "rules"

// UpdateSection replaces the body of the section key ("" for a's own).
// Only a section's owner writes it; the rules section is frozen. A refused
// write is logged with the section it aimed at (docs/pacts.md "Zones").
func (s *Service) UpdateSection(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact, key, body string) (Written, error) {
	if utf8.RuneCountInString(body) > 20000 {
		return Written{}, errs.E(errs.InvalidRequest, "a section is at most 20,000 characters")
	}
	p, seat, err := s.writable(ctx, tx, a, acc, pact)
	if err != nil {
		return Written{}, err
	}
	switch {
	case key == RulesKey:
		return Written{}, errs.E(errs.Forbidden, "the rules section of pact %s is frozen: nobody writes it once the pact exists", p.ID)
	case key != "" && key != seat.Key:
		return Written{}, errs.E(errs.Forbidden, "section %s belongs to its seat; you write only your own (%s). "+
			"This attempt is on the pact's record", key, seat.Key)
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "section", Ref: seat.Key, SeatKey: &seat.Key, Actor: a.String(), Excerpt: body})
	if err != nil {
		return Written{}, err
	}
	replaced, version, err := writeSection(ctx, tx, p.ID, seat.Key, body, a.String(), pos.ID)
	if err != nil {
		return Written{}, err
	}
	w, err := wrote(ctx, tx, seat, pos)
	w.replaced, w.version, w.seat = &replaced, version, seat.Key
	return w, err
}

// Raised is a raised decision's id with what every write answers.
type Raised struct {
	DecisionID string `json:"decision_id" jsonschema:"The decision's id. get_pact shows its answer once a person gives one."`
	Written
}

// Raise records a's decision with the options it could live with, and
// tells the people who answer it (tellRulers); only a person answers it
// (Answer). It answers the pact too, as it read it.
func (s *Service) Raise(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact, question string, options []string) (Raised, *pactRow, error) {
	if strings.TrimSpace(question) == "" || utf8.RuneCountInString(question) > 2000 {
		return Raised{}, nil, errs.E(errs.InvalidRequest, "a decision's question is 1-2,000 characters")
	}
	if len(options) < 1 || len(options) > 8 {
		return Raised{}, nil, errs.E(errs.InvalidRequest, "a decision offers 1-8 options you could live with; %d were given", len(options))
	}
	for i, o := range options {
		if strings.TrimSpace(o) == "" || utf8.RuneCountInString(o) > 500 {
			return Raised{}, nil, errs.E(errs.InvalidRequest, "option %d must be 1-500 characters", i+1)
		}
	}
	p, seat, err := s.writable(ctx, tx, a, acc, pact)
	if err != nil {
		return Raised{}, nil, err
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "decision", SeatKey: &seat.Key, Actor: a.String(), Excerpt: question})
	if err != nil {
		return Raised{}, nil, err
	}
	id, err := insertDecision(ctx, tx, seat, a.String(), question, options, pos.ID)
	if err != nil {
		return Raised{}, nil, err
	}
	w, err := wrote(ctx, tx, seat, pos)
	if err != nil {
		return Raised{}, nil, err
	}
	return Raised{DecisionID: id, Written: w}, p, s.tellRulers(ctx, tx, p, a, id, question)
}

// Handshake replaces a's handshake note: how it works in this pact.
func (s *Service) Handshake(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact, note string) (Written, error) {
	if utf8.RuneCountInString(note) > 2000 {
		return Written{}, errs.E(errs.InvalidRequest, "a handshake note is at most 2,000 characters")
	}
	p, seat, err := s.writable(ctx, tx, a, acc, pact)
	if err != nil {
		return Written{}, err
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "handshake", Ref: seat.Key, SeatKey: &seat.Key, Actor: a.String(), Excerpt: note})
	if err != nil {
		return Written{}, err
	}
	replaced, err := writeHandshake(ctx, tx, p.ID, seat.Key, note)
	if err != nil {
		return Written{}, err
	}
	w, err := wrote(ctx, tx, seat, pos)
	w.replaced, w.seat = &replaced, seat.Key
	return w, err
}
