package kernel

import (
	"context"
	"sync"

	"github.com/uptrace/bun"
)

// Claimed describes a successful claim, for the modules that add to a
// claim's answer (an exported credential) without the board module knowing
// them.
type Claimed struct {
	AgentID   string
	TaskID    string
	ProjectID string
	// MandateID is the chain's leaf the claim was made with; the chain has
	// been verified in this transaction.
	MandateID string
}

// ClaimHook adds fields to a claim's answer. It runs in the claim's
// transaction; it must never fail the claim, so it has no error: a hook
// that cannot do its part says why in the fields it returns. The answer is
// typed (pact_claim's output schema, docs/mcp-tools.json): it carries the
// fields it declares, credential and credential_note, and no others.
type ClaimHook func(ctx context.Context, tx bun.IDB, c Claimed) map[string]any

// ClaimHooks are the registered claim hooks.
type ClaimHooks struct {
	mu    sync.Mutex
	hooks []ClaimHook
}

// Add registers h; call it at start-up.
func (hs *ClaimHooks) Add(h ClaimHook) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.hooks = append(hs.hooks, h)
}

// Run calls every hook and merges what they add into out.
func (hs *ClaimHooks) Run(ctx context.Context, tx bun.IDB, c Claimed, out map[string]any) {
	hs.mu.Lock()
	hooks := append([]ClaimHook(nil), hs.hooks...)
	hs.mu.Unlock()
	for _, h := range hooks {
		for k, v := range h(ctx, tx, c) {
			out[k] = v
		}
	}
}
