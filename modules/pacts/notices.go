package pacts

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/outbox"
)

// tellRulers tells the organization's owners and approvers that a raised a
// decision in p: they are the people who answer it. The notice names the
// decision, so their inbox holds it as waiting while it is unanswered.
func (s *Service) tellRulers(ctx context.Context, tx bun.IDB, p *pactRow, a Actor, decision, question string) error {
	_, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.PactDecision, ProjectID: p.ProjectID, AgentID: a.Agent, DecisionID: decision,
		Title: "A decision waits for you in pact " + p.Name, Detail: question})
	return err
}
