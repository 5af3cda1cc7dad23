package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/sdk/errs"
)

// ClaimInput is a claim on a task.
type ClaimInput struct {
	TaskID string
	// Exclusive refuses an agent already holding a working task.
	Exclusive bool
	// Reserve is budget spent at once, in the claim's transaction.
	Reserve map[string]float64
}

// Claimed is what Claim did: the budget left (nil when the chain has no
// limits) and what the claim hooks added (an exported credential, or why
// there is none).
type Claimed struct {
	TaskID         string
	Budget         map[string]float64
	Credential     map[string]any
	CredentialNote string
}

// Claim gives task in.TaskID to by, an agent acting under its verified
// chain (docs/specs/behavior.md §6.4, §7.3): exactly one claimer wins. The
// task must be one it may see, of a project that is not frozen (nor
// production, for a Runner); chat agents never claim; a delegated task is
// its delegate's; a task waiting for approval waits; the chain must cover
// the task's action. in.Exclusive refuses an agent already holding a
// working task; in.Reserve is spent at once, in the claim's transaction.
func (s *Service) Claim(ctx context.Context, tx *db.Tx, by Actor, in ClaimInput) (Claimed, error) {
	t, p, err := s.workOn(ctx, tx, by, in.TaskID)
	if err != nil {
		return Claimed{}, err
	}
	chain, exclusive, reserve := by.Chain, in.Exclusive, in.Reserve
	if postOnly[by.Client] {
		return Claimed{}, errs.E(errs.ScopeExceeded, "chat agents post and watch tasks; they do not claim them")
	}
	if t.DelegateTo != nil && *t.DelegateTo != by.AgentID {
		return Claimed{}, errs.E(errs.WrongAgent, "task %s is delegated to %s", t.ID, *t.DelegateTo)
	}
	if t.Status == authRequired {
		return Claimed{}, errs.E(errs.ApprovalPending, "task %s waits for a person's approval; it cannot be claimed yet", t.ID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return Claimed{}, err
	}
	// Stale claims are released, the caller's working task looked up (and
	// its agent row locked) for an exclusive claim, and the task claimed,
	// in one round trip: a refusal after it rolls all of it back.
	release, logReleased := s.releaseStaleStep([]string{p.ID})
	steps := []db.Step{release}
	var held *string
	if exclusive {
		steps = append(steps, heldTaskSteps(by.AgentID, &held)...)
	}
	// The chain is held alive in the same round trip (mandate.Hold): a
	// revocation that committed since Verify refuses the claim, a later one
	// waits for it and then cancels the task (SEC-013).
	hold := mandate.HoldChain(chain)
	var won int
	steps = append(steps, hold.Step(), claimStep(by.AgentID, chain.Leaf().ID.String(), t.ID, &won))
	if err := tx.Pipeline(ctx, steps...); err != nil {
		return Claimed{}, wrapf(err, "claim %s", t.ID)
	}
	if err := hold.Err(); err != nil {
		return Claimed{}, err
	}
	if err := logReleased(ctx, tx); err != nil {
		return Claimed{}, wrapf(err, "claim %s", t.ID)
	}
	if held != nil {
		return Claimed{}, errs.E(errs.AgentBusy, "agent %s already works on task %s; finish it first", by.AgentID, *held)
	}
	if won == 0 {
		return Claimed{}, s.notClaimable(ctx, tx, t.ID)
	}
	if _, err := s.mandates.Consume(ctx, tx, chain, reserve, true); err != nil {
		return Claimed{}, wrapf(err, "claim %s", t.ID)
	}
	out := Claimed{TaskID: t.ID}
	if out.Budget, err = s.budget(ctx, tx, chain); err != nil {
		return Claimed{}, wrapf(err, "claim %s", t.ID)
	}
	added := map[string]any{}
	if err := s.claims(ctx, tx, seams.Claimed{AgentID: by.AgentID, TaskID: t.ID, ProjectID: p.ID,
		MandateID: chain.Leaf().ID.String(), Answer: added}); err != nil {
		return Claimed{}, wrapf(err, "claim %s", t.ID)
	}
	out.Credential, _ = added["credential"].(map[string]any)
	out.CredentialNote, _ = added["credential_note"].(string)
	return out, nil
}

// notClaimable says why a claim found the task taken or closed.
func (s *Service) notClaimable(ctx context.Context, tx bun.IDB, id string) error {
	now, err := s.st.getTask(ctx, tx, id, false)
	if err != nil {
		return wrapf(err, "claim %s", id)
	}
	if now.Assignee != nil {
		return errs.E(errs.AlreadyClaimed, "task %s is already claimed by %s", id, *now.Assignee)
	}
	if now.Status == submitted && !now.Deferred {
		// The claim's statement found it taken, deferred or closed, and it
		// is open again since (a person resumed it, a stale claim was
		// released): a race lost to that change, not a task that cannot be
		// claimed.
		return errs.E(errs.InvalidRequest, "task %s changed while you claimed it and is open again; claim it again", id)
	}
	state := now.Status
	if now.Deferred {
		state += " (deferred)"
	}
	return errs.E(errs.InvalidRequest, "task %s is %s and cannot be claimed", id, state)
}

// budget is what is left of each limit in the chain; nil when it has none.
func (s *Service) budget(ctx context.Context, tx bun.IDB, chain mandate.Chain) (map[string]float64, error) {
	left, err := s.mandates.Remaining(ctx, tx, chain)
	if err != nil || len(left) == 0 {
		return nil, err
	}
	return left, nil
}
