package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
)

// listenSQL records that agent $1 listens for $2 seconds from now ($2 <= 0:
// it stopped listening now).
const listenSQL = `INSERT INTO agent_presence AS p (agent_id, listening_until)
	VALUES ($1, now() + make_interval(secs => $2))
	ON CONFLICT (agent_id) DO UPDATE SET listening_until = excluded.listening_until`

// ListenUntil records that agent id holds a waiting call (pact_events) for
// d from now, so people see it online while it waits; d <= 0 records that
// it stopped listening now. The agent_presence table is this package's
// (docs/architecture.md, "Table ownership"), so the board asks here rather
// than writing the row itself.
func (s *Service) ListenUntil(ctx context.Context, tx bun.IDB, id string, d time.Duration) error {
	if _, err := s.db.Write(ctx, tx, listenSQL, id, max(d, 0).Seconds()); err != nil {
		return fmt.Errorf("agent %s listening: %w", id, err)
	}
	return nil
}

// ListenStep is ListenUntil as a step of a pipelined transaction, so that
// recording it costs the waiting call no round trip of its own.
func (s *Service) ListenStep(id string, d time.Duration) db.Step {
	return db.Step{SQL: listenSQL, Args: []any{id, max(d, 0).Seconds()}}
}
