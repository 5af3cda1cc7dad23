package kernel

import (
	"context"
	"fmt"
	"sync"

	"github.com/uptrace/bun"
)

// OrgCreatedHook seeds what a module keeps for a new organization (the
// board's default approval rules, docs/specs/behavior.md §5.8). It runs
// inside the transaction that creates the organization, so an error rolls
// the creation back, as mandate.Service.OnRevoke's hooks do for a revoke.
type OrgCreatedHook func(ctx context.Context, tx bun.Tx, orgID string) error

// OrgCreatedHooks are the hooks registered for "an organization was
// created". The module that creates organizations (people's sign-up) runs
// them; modules register at start-up only.
type OrgCreatedHooks struct {
	mu    sync.Mutex
	hooks []OrgCreatedHook
}

// Add registers h; call it at start-up.
func (hs *OrgCreatedHooks) Add(h OrgCreatedHook) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.hooks = append(hs.hooks, h)
}

// Run calls every hook in registration order inside tx and stops at the
// first error.
func (hs *OrgCreatedHooks) Run(ctx context.Context, tx bun.Tx, orgID string) error {
	hs.mu.Lock()
	hooks := append([]OrgCreatedHook(nil), hs.hooks...)
	hs.mu.Unlock()
	for _, h := range hooks {
		if err := h(ctx, tx, orgID); err != nil {
			return fmt.Errorf("seed organization %s: %w", orgID, err)
		}
	}
	return nil
}

// OrgCreated returns the "an organization was created" hooks.
func (h *Host) OrgCreated() *OrgCreatedHooks { return h.k.seams.orgCreated }

// OrgCreated returns the "an organization was created" hooks, for a
// caller holding the kernel rather than a Host (the test harness).
func (k *Kernel) OrgCreated() *OrgCreatedHooks { return k.seams.orgCreated }
