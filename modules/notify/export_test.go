package notify

import (
	"context"
	"time"
)

// NextDue is how long a delivery worker sleeps before it looks again, as
// it reads it after draining.
func (s *Service) NextDue(ctx context.Context) (time.Duration, error) { return s.nextDue(ctx) }
