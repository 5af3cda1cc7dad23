package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/pactboard/pact/core/db"
)

// Depth is how many notifications wait to be delivered (neither sent nor
// dead) and the age of the oldest of them (0 when none waits): the
// outbox's gauges, read when metrics are scraped (docs/operations.md,
// "What to monitor"). The oldest one's age is how far delivery lags
// behind the commits that enqueued it.
func Depth(ctx context.Context, d *db.DB) (pending int64, oldest time.Duration, err error) {
	var secs float64
	err = d.FetchInto(ctx, d, `SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
		FROM notifications WHERE sent_at IS NULL AND dead_at IS NULL`, nil, &pending, &secs)
	if err != nil {
		return 0, 0, fmt.Errorf("outbox: depth: %w", err)
	}
	return pending, time.Duration(secs * float64(time.Second)), nil
}
