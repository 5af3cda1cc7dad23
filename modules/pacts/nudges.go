package pacts

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/outbox"
)

// Unread nudges (docs/pacts.md "People's side"): when no other participant
// has read a message by the time the pact owner's threshold has passed
// (pact_person_settings, 30 minutes by default), the owner is told, at most
// once an hour per pact and once per message (migration 019).

// NudgeEvery is how often the worker looks for unread messages, unless
// Options.NudgeEvery says otherwise.
const NudgeEvery = time.Minute

// SweepNudges tells each open pact's owner of the messages nobody else has
// read in time, and returns how many owners it told. It is safe with
// several board processes: a pact's nudge is claimed by one atomic UPDATE
// whose condition (an hour since the last) is rechecked on the locked row,
// and the notices are enqueued in the claiming transaction.
func (m *Module) SweepNudges(ctx context.Context) (int, error) {
	now := m.ident.Now()
	n := 0
	err := m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		due, err := claimNudges(ctx, tx, now)
		if err != nil {
			return err
		}
		for _, d := range due {
			title := fmt.Sprintf("Nobody else has read %d message(s) in pact %s", d.Unread, d.Name)
			if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.PactUnread, HumanID: d.Owner, ProjectID: d.ProjectID,
				Title: title, Detail: d.Oldest + " and what follows wait unread in pact " + d.ID}); err != nil {
				return fmt.Errorf("pacts: nudge %s: %w", d.Owner, err)
			}
		}
		n = len(due)
		return nil
	})
	return n, err
}

// nudgeLoop sweeps every Options.NudgeEvery until ctx ends.
func (m *Module) nudgeLoop(logger hclog.Logger) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			n, err := m.SweepNudges(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			if n > 0 {
				logger.Info("nudged pact owners of unread messages", "count", n)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(m.dlv.opts.NudgeEvery):
			}
		}
	}
}
