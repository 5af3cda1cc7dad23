package pacts

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// "Questions for you" and the answers. Only an owner or approver answers,
// and only here: no MCP tool can (decisions_proof_test.go), and the
// database accepts an answer only on this path (migration 017).

type pactQuestionsIn struct {
	// Off by default, so a client that counts what waits on a person still
	// counts only open decisions.
	IncludeAnswered bool `query:"include_answered" doc:"Also list the decisions you answered that the raising agent has not read yet (their answer can still change), with your answer"`
}

type pactQuestionsOut struct {
	Body struct {
		Decisions []PactQuestion `json:"decisions" nullable:"false" doc:"Open decisions of the organization's open pacts (and, with include_answered, yours the agent has not read), oldest first"`
	}
}

type pactAnswerIn struct {
	DecisionID string `path:"decision_id" format:"uuid" doc:"The decision's id"`
	Body       struct {
		Choice    *string `json:"choice,omitempty" maxLength:"500" doc:"One of the decision's options, exactly as offered"`
		Answer    *string `json:"answer,omitempty" maxLength:"4000" doc:"Your own words, stored byte for byte"`
		NotNeeded bool    `json:"not_needed,omitempty" doc:"true answers Not needed"`
	}
}

type pactAnswerOut struct{ Body PactAnswer }

func (m *Module) registerDecisions(api huma.API) {
	huma.Register(api, m.adminOp(http.MethodGet, "/pact-decisions", "questions",
		"Questions for you: the open decisions of the organization, oldest first, and with include_answered your answers the agent has not read yet", identity.Approver),
		func(ctx context.Context, in *pactQuestionsIn) (*pactQuestionsOut, error) {
			out := &pactQuestionsOut{}
			return out, m.asPerson(ctx, func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
				out.Body.Decisions, err = m.svc.Questions(ctx, tx, a, acc, in.IncludeAnswered)
				return err
			})
		})
	huma.Register(api, m.adminOp(http.MethodPut, "/pact-decisions/{decision_id}/answer", "answer",
		"Answer a decision, or change the answer until the agent has read it: a choice, your own words, or Not needed",
		identity.Approver, http.StatusBadRequest, http.StatusNotFound),
		func(ctx context.Context, in *pactAnswerIn) (*pactAnswerOut, error) {
			p, err := kernel.SignedIn(ctx)
			if err != nil {
				return nil, err
			}
			a, err := m.answer(ctx, p.ID, in)
			if err != nil {
				return nil, err
			}
			return &pactAnswerOut{Body: *a}, nil
		})
}

// answer answers a decision as person by.
func (m *Module) answer(ctx context.Context, by string, in *pactAnswerIn) (*PactAnswer, error) {
	kind, text, err := answerOf(in.Body.Choice, in.Body.Answer, in.Body.NotNeeded)
	if err != nil {
		return nil, err
	}
	var out PactAnswer
	err = m.actAs(ctx, by, identity.Approver, "admin.pact.answer", map[string]any{"decision_id": in.DecisionID, "answer_kind": kind},
		func(ctx context.Context, tx bun.Tx, a Actor, acc Access) (err error) {
			out, err = m.svc.Answer(ctx, tx, a, acc, in.DecisionID, kind, text)
			return err
		})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
