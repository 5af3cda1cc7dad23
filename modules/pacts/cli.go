package pacts

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
)

// What a person does with pacts from the command line (pact-admin
// pact-list, pact-show, pact-questions, pact-answer, pact-close). Each runs
// the Service call the Admin API's operation runs, gated at the same role,
// and answers what the operation answers.

// PactShown is a pact as GET /admin/api/pacts/{pact_id} answers it.
type PactShown struct {
	Pact       PactView `json:"pact"`
	NextBefore int64    `json:"next_before"`
}

// ClosedPact is what closing a pact answers.
type ClosedPact struct {
	OK     bool  `json:"ok"`
	Cursor int64 `json:"cursor"`
}

// readFor runs a read as person by, who must be at least min.
func (m *Module) readFor(ctx context.Context, by string, min identity.Role,
	fn func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error) error {
	p, err := identity.RequirePerson(ctx, m.db, by, min)
	if err != nil {
		return err
	}
	return m.readAs(ctx, p, fn)
}

// Jobs is the Jobs list (every pact of person by's organization, or of
// project when it is not empty).
func (m *Module) Jobs(ctx context.Context, by, project string) ([]PactJob, error) {
	var out []PactJob
	err := m.readFor(ctx, by, identity.Viewer, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
		out, err = m.svc.Jobs(ctx, tx, a, acc, project)
		return err
	})
	if out == nil && err == nil {
		out = []PactJob{}
	}
	return out, err
}

// Show is pact id with the latest page of its thread, as person by sees it.
func (m *Module) Show(ctx context.Context, by, id string) (*PactShown, error) {
	var out *PactShown
	err := m.readFor(ctx, by, identity.Viewer, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) error {
		v, before, err := m.svc.Latest(ctx, tx, a, acc, id)
		if err == nil {
			out = &PactShown{Pact: *v, NextBefore: before}
		}
		return err
	})
	return out, err
}

// Questions are the open decisions person by (an approver) may answer, and
// with includeAnswered their answers the agent has not read yet.
func (m *Module) Questions(ctx context.Context, by string, includeAnswered bool) ([]PactQuestion, error) {
	var out []PactQuestion
	err := m.readFor(ctx, by, identity.Approver, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
		out, err = m.svc.Questions(ctx, tx, a, acc, includeAnswered)
		return err
	})
	if out == nil && err == nil {
		out = []PactQuestion{}
	}
	return out, err
}

// AnswerDecision answers decision id as person by with exactly one of a
// choice, their own words, or Not needed.
func (m *Module) AnswerDecision(ctx context.Context, by, id string, choice, words *string, notNeeded bool) (*PactAnswer, error) {
	in := &pactAnswerIn{DecisionID: id}
	in.Body.Choice, in.Body.Answer, in.Body.NotNeeded = choice, words, notNeeded
	return m.answer(ctx, by, in)
}

// ClosePact closes pact id as person by.
func (m *Module) ClosePact(ctx context.Context, by, id string) (*ClosedPact, error) {
	c, err := m.closePact(ctx, by, id)
	if err != nil {
		return nil, err
	}
	return &ClosedPact{OK: true, Cursor: c}, nil
}

// UndoChange undoes the agent's change logged as entry id, as person by
// (docs/pacts.md, "Undo").
func (m *Module) UndoChange(ctx context.Context, by string, id int64) (*Undone, error) {
	out, err := m.undoChange(ctx, by, id)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
