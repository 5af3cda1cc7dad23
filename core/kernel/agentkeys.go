package kernel

import (
	"context"
	"sync"

	"github.com/uptrace/bun"
)

// AgentKeys is what the module that keeps agents' public keys
// (credentials) tells the others about them, so that none reads its table
// (docs/architecture.md, "Table ownership").
type AgentKeys interface {
	// LiveKeyCounts returns how many unrevoked keys each of agentIDs has,
	// read in tx; an agent without any may be missing from the result.
	LiveKeyCounts(ctx context.Context, tx bun.IDB, agentIDs []string) (map[string]int, error)
}

// agentKeys forwards to the module that provides them; with none, agents
// have no keys.
type agentKeys struct {
	mu       sync.Mutex
	provider AgentKeys
}

func (a *agentKeys) LiveKeyCounts(ctx context.Context, tx bun.IDB, agentIDs []string) (map[string]int, error) {
	a.mu.Lock()
	p := a.provider
	a.mu.Unlock()
	if p == nil {
		return map[string]int{}, nil
	}
	return p.LiveKeyCounts(ctx, tx, agentIDs)
}

// ProvideAgentKeys makes k the agents' keys; call it at start-up.
func (h *Host) ProvideAgentKeys(k AgentKeys) {
	h.k.seams.keys.mu.Lock()
	defer h.k.seams.keys.mu.Unlock()
	h.k.seams.keys.provider = k
}

// AgentKeys returns the agents' keys, asked at call time, so the module
// order in cmd/ does not matter; with no provider every count is 0.
func (h *Host) AgentKeys() AgentKeys { return h.k.seams.keys }
