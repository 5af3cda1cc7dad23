package notify

import (
	"context"
	"time"
)

// Round is one round of a delivery worker leasing as owner: what is due
// delivered, and how long it then sleeps.
func (s *Service) Round(ctx context.Context, owner string) (time.Duration, error) {
	return s.round(ctx, owner)
}

// NextDue is how long a delivery worker sleeps after a round.
func (s *Service) NextDue(ctx context.Context) (time.Duration, error) { return s.nextDue(ctx) }
