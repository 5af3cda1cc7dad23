package pacts

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// PactQuestion is a decision in "Questions for you": open, or answered by
// the caller and not yet read by the agent that raised it (then the answer
// fields are set, and the answer can still be changed).
type PactQuestion struct {
	ID           string     `json:"id" bun:"id"`
	PactID       string     `json:"pact_id" bun:"pact_id"`
	PactName     string     `json:"pact_name" bun:"pact_name"`
	Project      string     `json:"project_id" bun:"project_id"`
	Seat         string     `json:"seat" bun:"seat_key"`
	Agent        string     `json:"agent" bun:"display_name" doc:"The raising seat's display name"`
	RaisedBy     string     `json:"raised_by" bun:"raised_by" example:"agent:wanda"`
	PactQuestion string     `json:"question" bun:"question"`
	Options      []string   `json:"options" bun:"options,array" nullable:"false"`
	RaisedAt     time.Time  `json:"raised_at" bun:"raised_at"`
	Waited       int64      `json:"waited_seconds" bun:"-" doc:"How long it has waited, in seconds"`
	AnswerKind   *string    `json:"answer_kind,omitempty" bun:"answer_kind" enum:"choice,own_words,not_needed" doc:"Set when you answered it and the agent has not read the answer yet"`
	Answer       *string    `json:"answer,omitempty" bun:"answer" doc:"Your answer, word for word; you may still change it"`
	AnsweredBy   *string    `json:"answered_by,omitempty" bun:"answered_by" doc:"You, when answered"`
	AnsweredAt   *time.Time `json:"answered_at,omitempty" bun:"answered_at"`
}

// Questions lists the open decisions of a's organization in open pacts,
// oldest first. With answered, it also lists those a answered that the
// raising agent has not read: until then the answer may change (migration
// 017), so the person needs to see it where they gave it.
func (s *Service) Questions(ctx context.Context, tx bun.IDB, a Actor, acc Access, answered bool) ([]PactQuestion, error) {
	out, err := openQuestions(ctx, tx, a.Org, acc.Read, answered, a.Human)
	if err != nil {
		return nil, err
	}
	now := s.ident.Now()
	for i := range out {
		out[i].RaisedAt = out[i].RaisedAt.UTC()
		out[i].Waited = max(0, int64(now.Sub(out[i].RaisedAt)/time.Second))
		if t := out[i].AnsweredAt; t != nil {
			out[i].AnsweredAt = new(t.UTC())
		}
	}
	if out == nil {
		out = []PactQuestion{}
	}
	return out, nil
}
