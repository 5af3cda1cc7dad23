package mandate

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// LiveHeldCounts returns how many unrevoked, unexpired mandates each of
// holders holds, read in tx; a holder with none may be missing.
func (s *Service) LiveHeldCounts(ctx context.Context, tx bun.IDB, holders []string) (map[string]int, error) {
	var rows []struct {
		Holder string `bun:"holder"`
		N      int    `bun:"n"`
	}
	err := tx.NewRaw(`SELECT holder, count(*) AS n FROM mandates WHERE holder = ANY(?::text[])
		AND revoked_at IS NULL AND expires_at > now() GROUP BY holder`, pgdialect.Array(holders)).Scan(ctx, &rows)
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Holder] = r.N
	}
	return out, err
}

// LiveRoots lists the root mandates holder holds that are unrevoked and
// unexpired at at, oldest first: what a reissue revokes.
func (s *Service) LiveRoots(ctx context.Context, tx bun.IDB, holder string, at time.Time) ([]uuid.UUID, error) {
	var live []uuid.UUID
	err := tx.NewRaw(`SELECT id FROM mandates WHERE holder = ? AND parent_id IS NULL AND revoked_at IS NULL
		AND expires_at > ? ORDER BY created_at`, holder, at).Scan(ctx, &live)
	return live, err
}
