package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ListenUntil records that agent id holds a waiting call (pact_events) for
// d from now, so people see it online while it waits; d <= 0 records that
// it stopped listening now. The agent_presence table is this package's
// (docs/architecture.md, "Table ownership"), so the board asks here rather
// than writing the row itself.
func (s *Service) ListenUntil(ctx context.Context, tx bun.IDB, id string, d time.Duration) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO agent_presence AS p (agent_id, listening_until)
		VALUES (?, now() + make_interval(secs => ?))
		ON CONFLICT (agent_id) DO UPDATE SET listening_until = excluded.listening_until`, id, max(d, 0).Seconds())
	if err != nil {
		return fmt.Errorf("agent %s listening: %w", id, err)
	}
	return nil
}
