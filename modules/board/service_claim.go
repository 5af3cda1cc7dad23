package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/sdk/errs"
)

// claimed is what Claim did: the budget left and what the claim hooks
// added (an exported credential, or why there is none).
type claimed struct {
	Budget         map[string]float64
	Credential     map[string]any
	CredentialNote string
}

// Claim gives t, a task of project p, to by, an agent acting under chain,
// which the adapter has verified (docs/specs/behavior.md §6.4, §7.3): exactly one
// claimer wins. Chat agents never claim; a delegated task is its
// delegate's; a task waiting for approval waits; the chain must cover the
// task's action. exclusive refuses an agent already holding a working
// task; reserve is spent at once, in the claim's transaction.
func (m *Module) Claim(ctx context.Context, tx *db.Tx, by Actor, chain mandate.Chain, t *task, p *project,
	exclusive bool, reserve map[string]float64) (claimed, error) {
	if postOnly[by.Client] {
		return claimed{}, errs.E(errs.ScopeExceeded, "chat agents post and watch tasks; they do not claim them")
	}
	if t.DelegateTo != nil && *t.DelegateTo != by.AgentID {
		return claimed{}, errs.E(errs.WrongAgent, "task %s is delegated to %s", t.ID, *t.DelegateTo)
	}
	if t.Status == authRequired {
		return claimed{}, errs.E(errs.ApprovalPending, "task %s waits for a person's approval; it cannot be claimed yet", t.ID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return claimed{}, err
	}
	// Stale claims are released, the caller's working task looked up (and
	// its agent row locked) for an exclusive claim, and the task claimed,
	// in one round trip: a refusal after it rolls all of it back.
	release, logReleased := m.releaseStaleStep([]string{p.ID})
	steps := []db.Step{release}
	var held *string
	if exclusive {
		steps = append(steps, db.Step{SQL: lockAgentSQL, Args: []any{by.AgentID}},
			db.Step{SQL: heldTaskSQL, Args: []any{by.AgentID}, Rows: db.OneRow(&held)})
	}
	// The chain is held alive in the same round trip (mandate.Hold): a
	// revocation that committed since Verify refuses the claim, a later one
	// waits for it and then cancels the task (SEC-013).
	hold := mandate.HoldChain(chain)
	var won int
	steps = append(steps, hold.Step(), db.Step{SQL: claimTaskSQL, Args: []any{by.AgentID, chain.Leaf().ID.String(), t.ID},
		Rows: db.OneRow(&won)})
	if err := tx.Pipeline(ctx, steps...); err != nil {
		return claimed{}, wrapf(err, "claim %s", t.ID)
	}
	if err := hold.Err(); err != nil {
		return claimed{}, err
	}
	if err := logReleased(ctx, tx); err != nil {
		return claimed{}, wrapf(err, "claim %s", t.ID)
	}
	if held != nil {
		return claimed{}, errs.E(errs.AgentBusy, "agent %s already works on task %s; finish it first", by.AgentID, *held)
	}
	if won == 0 {
		return claimed{}, m.notClaimable(ctx, tx, t.ID)
	}
	if _, err := m.mandates.Consume(ctx, tx, chain, reserve, true); err != nil {
		return claimed{}, wrapf(err, "claim %s", t.ID)
	}
	var out claimed
	var err error
	if out.Budget, err = m.budget(ctx, tx, chain); err != nil {
		return claimed{}, wrapf(err, "claim %s", t.ID)
	}
	added := map[string]any{}
	if err := m.claims(ctx, tx, seams.Claimed{AgentID: by.AgentID, TaskID: t.ID, ProjectID: p.ID,
		MandateID: chain.Leaf().ID.String(), Answer: added}); err != nil {
		return claimed{}, wrapf(err, "claim %s", t.ID)
	}
	out.Credential, _ = added["credential"].(map[string]any)
	out.CredentialNote, _ = added["credential_note"].(string)
	return out, nil
}

// notClaimable says why a claim found the task taken or closed.
func (m *Module) notClaimable(ctx context.Context, tx bun.IDB, id string) error {
	now, err := m.getTask(ctx, tx, id, false)
	if err != nil {
		return wrapf(err, "claim %s", id)
	}
	if now.Assignee != nil {
		return errs.E(errs.AlreadyClaimed, "task %s is already claimed by %s", id, *now.Assignee)
	}
	state := now.Status
	if now.Deferred {
		state += " (deferred)"
	}
	return errs.E(errs.InvalidRequest, "task %s is %s and cannot be claimed", id, state)
}

// budget is what is left of each limit in the chain; nil when it has none.
func (m *Module) budget(ctx context.Context, tx bun.IDB, chain mandate.Chain) (map[string]float64, error) {
	left, err := m.mandates.Remaining(ctx, tx, chain)
	if err != nil || len(left) == 0 {
		return nil, err
	}
	return left, nil
}
