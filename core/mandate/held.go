package mandate

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/sdk/errs"
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

// LiveHeld lists the mandates holder holds whose own row is unrevoked and
// unexpired, shallowest first. A link above one may still be revoked or
// expired: Reach verifies each.
func (s *Service) LiveHeld(ctx context.Context, tx bun.IDB, holder string) ([]string, error) {
	var ids []string
	err := tx.NewRaw(`SELECT id::text FROM mandates WHERE holder = ? AND revoked_at IS NULL AND expires_at > ?
		ORDER BY depth, created_at`, holder, s.now()).Scan(ctx, &ids)
	return ids, err
}

// Reach is where holder may act on action now, whatever mandate it would
// name: the projects among projects whose board scope for action the leaf
// of some mandate it holds covers, when that mandate's whole chain
// verifies (Verify). It is what a channel that pushes content to an agent
// checks before each push (docs/security.md, "A stop reaches every
// channel"): a revoked or expired link anywhere above, a banned, paused or
// disabled principal along the chain, all take the projects it covered
// away. Mandates that do not verify are skipped, not errors; only database
// errors are returned.
func (s *Service) Reach(ctx context.Context, tx bun.IDB, holder, action string, projects []string) ([]string, error) {
	if len(projects) == 0 {
		return nil, nil
	}
	ids, err := s.LiveHeld(ctx, tx, holder)
	if err != nil {
		return nil, err
	}
	covered := map[string]bool{}
	for _, id := range ids {
		chain, err := s.Verify(ctx, tx, id, holder)
		if err != nil {
			if _, refused := errs.As(err); refused {
				continue
			}
			return nil, err
		}
		leaf := chain.Leaf()
		for _, p := range projects {
			if !covered[p] && AnyCovers(leaf.Scope, BoardScope(action, p)) {
				covered[p] = true
			}
		}
		if len(covered) == len(projects) {
			break
		}
	}
	var out []string
	for _, p := range projects {
		if covered[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// CoversSQL is a SQL condition, true while the agent named by the SQL
// expression holder holds a mandate whose leaf's scope covers action on
// the project named by the SQL expression project, and no link of whose
// chain, the leaf included, is revoked or expired. It is Reach for a
// statement that must decide inside its own round trip; it does not check
// signatures or the principals along the chain, which Verify (and so
// Reach) does before anything is handed out. Both expressions are SQL the
// caller writes, never input; action is a constant of the caller's.
func CoversSQL(holder, project, action string) string {
	var patterns strings.Builder
	for i, p := range CoveringPatterns(action) {
		if i > 0 {
			patterns.WriteString(", ")
		}
		patterns.WriteString("'" + strings.ReplaceAll(p+projectMarker, "'", "''") + "' || " + project)
	}
	return `EXISTS (SELECT 1 FROM mandates cm WHERE cm.holder = ` + holder + `
		  AND cm.revoked_at IS NULL AND cm.expires_at > now() AND cm.scope && ARRAY[` + patterns.String() + `]
		  AND NOT EXISTS (WITH RECURSIVE up (id) AS (SELECT cm.parent_id
		      UNION ALL SELECT x.parent_id FROM mandates x JOIN up ON x.id = up.id WHERE x.parent_id IS NOT NULL)
		    SELECT 1 FROM mandates y JOIN up ON y.id = up.id WHERE y.revoked_at IS NOT NULL OR y.expires_at <= now()))`
}
