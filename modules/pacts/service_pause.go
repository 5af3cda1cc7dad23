package pacts

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// SetPaused pauses or wakes the job of seat key in pact: while paused, the
// seat's writes are refused. A person's role was checked at the Admin
// API's gate; an agent's person must be an owner or approver (ruler). A
// person may pause or wake any seat; an agent is held to agentMayPause
// (docs/pacts.md "Pausing a job", SEC-016).
func (s *Service) SetPaused(ctx context.Context, tx bun.IDB, a Actor, acc Access, pact, key string, paused bool) (int64, error) {
	if a.Agent != "" {
		if _, err := s.ruler(ctx, tx, a.Agent, "pausing or waking a pact job"); err != nil {
			return 0, err
		}
	}
	p, err := s.reach(ctx, tx, a, acc, pact, false)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(acc.Write, p.ProjectID) {
		return 0, errs.E(errs.ScopeExceeded, "pausing a job in pact %s needs pact.write@project:%s", p.ID, p.ProjectID)
	}
	if a.Agent != "" {
		if err := agentMayPause(ctx, tx, a, p, key, paused); err != nil {
			return 0, err
		}
	}
	found, err := setSeatPaused(ctx, tx, p.ID, key, a.String(), paused)
	if err != nil {
		return 0, err
	}
	if !found {
		return 0, errs.E(errs.NotFound, "pact %s has no seat %s (or it was removed)", p.ID, key)
	}
	what := "woken"
	if paused {
		what = "paused"
	}
	pos, err := appendFeed(ctx, tx, feedItem{PactID: p.ID, Kind: "seat", Ref: key, Actor: a.String(), Excerpt: key + " " + what})
	return pos.Seq, err
}

// agentMayPause refuses an agent's pause or wake of seat key in p unless
// the pact is open, the agent acts from a seat of its own that it joined,
// that was not removed and is not paused, and the seat is another agent's
// whose pause, if any, an agent set: a person's pause is undone, or
// taken over, only by a person. Both seats stay locked until the
// transaction ends, so a person's pause cannot slip in between the check
// and the change. The refusals, in this order, are documented in
// docs/pacts.md "Refusals".
func agentMayPause(ctx context.Context, tx bun.IDB, a Actor, p *pactRow, key string, paused bool) error {
	if p.ClosedAt != nil {
		return errs.E(errs.Forbidden, "pact %s is closed: it stays readable, and nobody's job in it can be paused or woken", p.ID)
	}
	rows, err := pauseSeats(ctx, tx, p.ID, a.Agent, key)
	if err != nil {
		return err
	}
	var own, target *seatRow
	for i := range rows {
		if rows[i].AgentID != nil && *rows[i].AgentID == a.Agent {
			own = &rows[i]
		}
		if rows[i].Key == key {
			target = &rows[i]
		}
	}
	verb := "wake"
	if paused {
		verb = "pause"
	}
	switch {
	case own == nil:
		return errs.E(errs.Forbidden, "%s has no seat in pact %s: only a participant may %s a job there; "+
			"ask a participant, or a person from the console", a, p.ID, verb)
	case own.RemovedAt != nil:
		return errs.E(errs.Forbidden, "your seat %s in pact %s was removed: you can no longer pause or wake anyone there", own.Key, p.ID)
	case own.JoinedAt == nil:
		return errs.E(errs.Forbidden, "seat %s in pact %s waits for you: take it with join_pact first", own.Key, p.ID)
	case target == nil || target.RemovedAt != nil:
		return errs.E(errs.NotFound, "pact %s has no seat %s (or it was removed)", p.ID, key)
	case target.Key == own.Key:
		return errs.E(errs.Forbidden, "%s is your own seat in pact %s: an agent cannot %s its own job; "+
			"ask another participant, or a person from the console", key, p.ID, verb)
	case own.PausedAt != nil:
		return pausedRefusal(p.ID, own)
	case target.HumanID != nil:
		return errs.E(errs.Forbidden, "%s is a person's seat in pact %s: only people pause or wake a person's job, from the console", key, p.ID)
	case target.PausedAt != nil && !pausedByAgent(target):
		return errs.E(errs.Forbidden, "seat %s in pact %s was paused by a person (%s): an agent can neither wake it nor pause it again; "+
			"ask an owner or approver to wake it from the console", key, p.ID, pauser(target))
	}
	return nil
}

// pausedByAgent reports whether an agent holds seat's pause. A pause with
// no holder recorded counts as a person's: agents may undo only what they
// are known to have done.
func pausedByAgent(seat *seatRow) bool {
	return seat.PausedBy != nil && strings.HasPrefix(*seat.PausedBy, "agent:")
}

// pauser names who holds seat's pause.
func pauser(seat *seatRow) string {
	if seat.PausedBy == nil {
		return "a person"
	}
	return *seat.PausedBy
}

// pausedRefusal is the refusal of a write from seat while it is paused.
func pausedRefusal(pact string, seat *seatRow) error {
	return errs.E(errs.AgentPaused, "your job in pact %s is paused by %s: reading still works, and writes wait until "+
		"a person or another participant wakes it", pact, pauser(seat))
}
