package notify

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/outbox"
)

// sweepLease names the expiry sweep's row in notify_leases.
const sweepLease = "expiry-sweep"

// TrySweep runs the expiry sweep if this process takes the sweep's lease,
// which then stays taken for SweepEvery: however many board processes try,
// one sweep runs per period. ran is false when another process (or an
// earlier call) holds the lease. The lease and the warnings commit together,
// so a sweep that fails leaves the lease free for the next try.
func (s *Service) TrySweep(ctx context.Context) (ran bool, queued int, err error) {
	err = s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		leased, err := takeLease(ctx, tx, sweepLease, s.owner, s.opts.SweepEvery)
		if err != nil || !leased {
			return err
		}
		ran = true
		queued, err = s.sweep(ctx, tx)
		return err
	})
	if err != nil {
		return false, 0, err
	}
	return ran, queued, nil
}

// SweepExpiry queues the expiry warnings due now, whatever the lease says,
// and returns how many it queued. Each warning still goes out once: see
// [Service.TrySweep] for the periodic, leased sweep.
func (s *Service) SweepExpiry(ctx context.Context) (int, error) {
	var n int
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		n, err = s.sweep(ctx, tx)
		return err
	})
	return n, err
}

// sweepLoop tries the leased sweep every SweepCheck until ctx ends.
func (s *Service) sweepLoop(ctx context.Context) error {
	for {
		ran, n, err := s.TrySweep(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if ran && n > 0 {
			s.logger.Info("queued expiry warnings", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(s.opts.SweepCheck):
		}
	}
}

// expiring is one subject of a warning.
type expiring struct {
	What      string    `bun:"what"` // "mandate" or "token"
	Ref       string    `bun:"ref"`  // the mandate's id, or the agent's for a token
	AgentID   string    `bun:"agent_id"`
	ProjectID string    `bun:"project_id"`
	ExpiresAt time.Time `bun:"expires_at"`
	Expired   bool      `bun:"expired"`
	Language  string    `bun:"language"` // the agent's organization's
}

// sweep queues, inside tx, one warning per subject and stage not yet warned
// of (docs/specs/behavior.md §8.8). Subjects: the human-issued, unrevoked root
// mandates of active agents, except one a newer such mandate of the same
// agent outlives by more than an hour (it was renewed); and each active
// agent's newest unrevoked token. A subject is warned of when it expires
// within ExpiryWarn ("expiring") or has expired ("expired"), but not when
// it expired over a day ago. Paused, banned and replaced agents are
// silent, and an agent needs a project (its first by id) to be warned of.
func (s *Service) sweep(ctx context.Context, tx bun.Tx) (int, error) {
	subjects, err := expiringSubjects(ctx, tx, s.opts.ExpiryWarn)
	if err != nil {
		return 0, err
	}
	queued := 0
	for _, e := range subjects {
		subject, stage := e.subject(), outbox.Expiring
		if e.Expired {
			stage = outbox.Expired
		}
		fresh, err := noteWarning(ctx, tx, subject, stage)
		if err != nil {
			return queued, err
		}
		if !fresh {
			continue // warned of already
		}
		_, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: stage, ProjectID: e.ProjectID, AgentID: e.AgentID,
			Title: s.expiryTitle(e), Detail: s.renewal(e)})
		if err != nil {
			return queued, err
		}
		queued++
	}
	return queued, nil
}

// subject is the warning's key in expiry_notices: mandate:<id>, or
// token:<agent>:<expiry> (a new token is a new subject).
func (e *expiring) subject() string {
	if e.What == "mandate" {
		return "mandate:" + e.Ref
	}
	return "token:" + e.Ref + ":" + e.ExpiresAt.UTC().Format(time.RFC3339Nano)
}

// expiryTitle is "<agent>: root mandate expires <when>" or "<agent>: token
// expired at <when>", the time in the board's zone, in the language of the
// agent's organization.
func (s *Service) expiryTitle(e expiring) string {
	id := msgTokenExpiring
	switch {
	case e.What == "mandate" && e.Expired:
		id = msgMandateExpired
	case e.What == "mandate":
		id = msgMandateExpiring
	case e.Expired:
		id = msgTokenExpired
	}
	return s.text(e.Language, id, map[string]any{"Agent": e.AgentID,
		"When": e.ExpiresAt.In(s.opts.Location).Format("2006-01-02 15:04 MST")})
}

// renewal says what a person does about it.
func (s *Service) renewal(e expiring) string {
	cmd := "token-issue"
	if e.What == "mandate" {
		cmd = "mandate-issue"
	}
	return s.text(e.Language, msgRenew, map[string]any{"Command": cmd})
}
