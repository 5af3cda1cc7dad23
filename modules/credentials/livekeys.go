package credentials

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// liveKeys answers kernel.AgentKeys: the module owns agent_keys, so others
// (people's agent listing) count an agent's live keys through the kernel.
type liveKeys struct{}

// LiveKeyCounts returns how many unrevoked keys each of agentIDs has.
func (liveKeys) LiveKeyCounts(ctx context.Context, tx bun.IDB, agentIDs []string) (map[string]int, error) {
	var rows []struct {
		AgentID string `bun:"agent_id"`
		N       int    `bun:"n"`
	}
	err := tx.NewRaw(`SELECT agent_id, count(*) AS n FROM agent_keys WHERE agent_id = ANY(?::text[])
		AND revoked_at IS NULL GROUP BY agent_id`, pgdialect.Array(agentIDs)).Scan(ctx, &rows)
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.AgentID] = r.N
	}
	return out, err
}
