package credentials

import (
	"context"

	"github.com/uptrace/bun"
)

// LiveKeyCounts answers seams.AgentKeys: the module owns agent_keys, so
// others (people's agent listing) count an agent's live keys through the
// kernel. It returns how many unrevoked keys each of agentIDs has, read in
// tx.
func (s *Service) LiveKeyCounts(ctx context.Context, tx bun.IDB, agentIDs []string) (map[string]int, error) {
	return liveKeyCounts(ctx, tx, agentIDs)
}
