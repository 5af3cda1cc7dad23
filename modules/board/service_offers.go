package board

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/events"
)

// Offers (docs/events.md, "Offers"): a task that becomes claimable wakes one
// agent holding pact_events in its project, chosen in the database
// (task_offer, migration 024) so that boards sharing it make one offer, not
// one each; the other holders sleep on, costing nothing. An offer is never
// a claim: the woken agent still claims under its mandate, and its answer
// (like every holder's) lists everything it may claim, the tasks offered
// to it named in offered. A task still claimable when the offer's lease
// runs out is offered to the next holder (reoffer).

// defaultOfferLease is how long an offer waits for its holder to claim.
const defaultOfferLease = 10 * time.Second

// reofferEvery is how often a board looks for offers whose lease ran out.
const reofferEvery = time.Second

// wakeTask wakes whom a task that became claimable concerns: its
// delegate alone, or one holder of pact_events in its project (an offer).
func (s *Service) wakeTask(ctx context.Context, tx bun.IDB, taskID, projectID, orgID string, delegate *string) error {
	if delegate != nil {
		return events.Publish(ctx, tx, events.Event{Kind: events.KindTask, OrgID: orgID, ProjectID: projectID,
			TaskID: taskID, AgentID: *delegate})
	}
	return s.st.offer(ctx, tx, taskID, projectID, orgID, s.offerLease)
}

// reoffer offers each task whose offer's lease ran out to the next holder,
// and forgets the offers of tasks claimed or closed meanwhile.
func (s *Service) reoffer(ctx context.Context) error {
	if err := s.st.reoffer(ctx, s.offerLease); err != nil {
		return fmt.Errorf("board: offer again: %w", err)
	}
	return nil
}
