package pacts

import (
	"time"
)

// SeatView is a seat as participants see it.
type SeatView struct {
	Key         string  `json:"key" jsonschema:"The seat's key, e.g. @ventureos."`
	DisplayName string  `json:"display_name" jsonschema:"Its display name."`
	Prefix      string  `json:"prefix" jsonschema:"The prefix its messages are numbered with."`
	Agent       string  `json:"agent_id,omitempty" jsonschema:"The agent in it, for an agent's seat."`
	Human       string  `json:"human_id,omitempty" jsonschema:"The person in it, for a person's seat."`
	State       string  `json:"state" jsonschema:"invited (waiting for join_pact), joined, paused or removed."`
	Handshake   string  `json:"handshake,omitempty" jsonschema:"Its handshake note: how it works in this pact."`
	You         bool    `json:"you,omitzero" jsonschema:"Whether this is your seat."`
	JoinedAt    *string `json:"joined_at,omitempty" jsonschema:"When it took the seat."`
}

func (r seatRow) view(a Actor) SeatView {
	v := SeatView{Key: r.Key, DisplayName: r.DisplayName, Prefix: r.Prefix, Handshake: r.Handshake, State: "joined"}
	if r.AgentID != nil {
		v.Agent = *r.AgentID
		v.You = a.Agent == v.Agent
	}
	if r.HumanID != nil {
		v.Human = *r.HumanID
		v.You = a.Human == v.Human
	}
	switch {
	case r.RemovedAt != nil:
		v.State = "removed"
	case r.JoinedAt == nil:
		v.State = "invited"
	case r.PausedAt != nil:
		v.State = "paused"
	}
	if r.JoinedAt != nil {
		v.JoinedAt = new(iso(*r.JoinedAt))
	}
	return v
}

// Refused is a refused write aimed at a section, from the pact's record.
type Refused struct {
	By   string `json:"by" jsonschema:"Who tried: agent:<id> or human:<id>."`
	At   string `json:"at" jsonschema:"When."`
	Code string `json:"code" jsonschema:"The refusal's code."`
}

// SectionView is one zone of the page.
type SectionView struct {
	Key       string    `json:"key" jsonschema:"The seat that owns it, or rules for the frozen section at the top."`
	Body      string    `json:"body" jsonschema:"Its text."`
	Version   int       `json:"version" jsonschema:"How many times it was written."`
	UpdatedAt *string   `json:"updated_at,omitempty" jsonschema:"When it was last written."`
	Refused   []Refused `json:"refused_writes,omitzero" jsonschema:"Writes by others the board refused, from the pact's record, newest first."`
}

// MessageView is one message of the thread.
type MessageView struct {
	Number  string `bun:"number" json:"number" jsonschema:"Its permanent number, e.g. W-001."`
	Seat    string `bun:"seat_key" json:"seat" jsonschema:"The seat that wrote it."`
	Author  string `bun:"author" json:"author" jsonschema:"Who wrote it: agent:<id> or human:<id>."`
	Body    string `bun:"body" json:"body" jsonschema:"The message."`
	ReplyTo string `bun:"reply_to" json:"reply_to,omitempty" jsonschema:"The number it answers."`
	Status  string `bun:"status" json:"status" jsonschema:"open, done or superseded (only its author changes it)."`
	At      string `bun:"-" json:"at" jsonschema:"When it was posted."`
	Cursor  int64  `bun:"cursor" json:"cursor" jsonschema:"Its place in the pact's feed."`

	// FeedID is its feed row's id, which stays on the board; Cursor is the
	// row's number in the organization's feed (migration 029).
	FeedID    int64     `bun:"feed_id" json:"-"`
	CreatedAt time.Time `bun:"created_at" json:"-"`
}

// DecisionView is a decision and, once a person gave one, its answer.
type DecisionView struct {
	ID         string   `bun:"id" json:"id" jsonschema:"The decision's id."`
	Seat       string   `bun:"seat_key" json:"seat" jsonschema:"The seat that raised it."`
	RaisedBy   string   `bun:"raised_by" json:"raised_by" jsonschema:"Who raised it."`
	Question   string   `bun:"question" json:"question" jsonschema:"What was asked."`
	Options    []string `bun:"options,array" json:"options" jsonschema:"The options offered."`
	RaisedAt   string   `bun:"-" json:"raised_at" jsonschema:"When."`
	Answer     *string  `bun:"answer" json:"answer,omitempty" jsonschema:"A person's answer, word for word: the ruling."`
	AnswerKind *string  `bun:"answer_kind" json:"answer_kind,omitempty" jsonschema:"choice, own_words or not_needed."`
	AnsweredBy *string  `bun:"answered_by" json:"answered_by,omitempty" jsonschema:"The person who answered."`
	AnsweredAt *string  `bun:"-" json:"answered_at,omitempty" jsonschema:"When."`

	RaisedTime   time.Time  `bun:"raised_at" json:"-"`
	AnsweredTime *time.Time `bun:"answered_at" json:"-"`
	FeedID       int64      `bun:"feed_id" json:"-"`
	AnswerFeed   *int64     `bun:"answer_feed" json:"-"`
}

func (d *DecisionView) fill() {
	d.RaisedAt = iso(d.RaisedTime)
	if d.AnsweredTime != nil {
		d.AnsweredAt = new(iso(*d.AnsweredTime))
	}
}
