package kernel

import (
	"context"
	"fmt"
	"sync"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// BoardFacts is what another module may ask of the board about its tasks
// without reading the board's tables (docs/architecture.md, "Table
// ownership"). The board module provides it at Register; any module may
// ask, whatever the order the modules registered in.
type BoardFacts interface {
	// OpenTaskCounts returns how many open tasks (task_status_is_open, see
	// migrations/010_table_owners.sql) each of projectIDs has, read in tx.
	// Every id asked for is in the result, 0 when it has none.
	OpenTaskCounts(ctx context.Context, tx bun.IDB, projectIDs []string) (map[string]int, error)
}

// seams are the kernel's registries through which modules ask each other
// for what they own: pact_whoami's sections, the board's facts, agents'
// keys, Slack webhooks and the hooks of a new organization.
type seams struct {
	whoami     *Whoami
	board      *boardFacts
	keys       *agentKeys
	slack      *slackWebhooks
	orgCreated *OrgCreatedHooks
	sessions   *adminSessions
	grants     *grants
}

func newSeams() *seams {
	return &seams{whoami: newWhoami(), board: &boardFacts{}, keys: &agentKeys{}, slack: &slackWebhooks{},
		orgCreated: &OrgCreatedHooks{}, sessions: &adminSessions{}, grants: &grants{}}
}

// boardFacts forwards to the module that provides them, so a module that
// registers before the board can keep the handle it gets at Register.
type boardFacts struct {
	mu       sync.Mutex
	module   string
	provider BoardFacts
}

func (b *boardFacts) provide(module string, f BoardFacts) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case f == nil:
		return fmt.Errorf("module %s provides nil board facts", module)
	case b.provider != nil:
		return fmt.Errorf("board facts are provided by %s and %s", b.module, module)
	}
	b.module, b.provider = module, f
	return nil
}

func (b *boardFacts) get() (BoardFacts, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.provider == nil {
		return nil, errs.E(errs.Unavailable, "no module provides the board's facts")
	}
	return b.provider, nil
}

// OpenTaskCounts asks the provider; with none registered it is refused as
// unavailable.
func (b *boardFacts) OpenTaskCounts(ctx context.Context, tx bun.IDB, projectIDs []string) (map[string]int, error) {
	f, err := b.get()
	if err != nil {
		return nil, err
	}
	counts, err := f.OpenTaskCounts(ctx, tx, projectIDs)
	if err != nil {
		return nil, fmt.Errorf("open task counts: %w", err)
	}
	return counts, nil
}

// ProvideBoardFacts makes f the board's facts; only one module may provide
// them.
func (h *Host) ProvideBoardFacts(f BoardFacts) error { return h.k.seams.board.provide(h.module, f) }

// BoardFacts returns the board's facts. The handle is valid at once and
// asks the provider at call time, so the module order in cmd/ does not
// matter; a call with no board registered is refused as unavailable.
func (h *Host) BoardFacts() BoardFacts { return h.k.seams.board }

// BoardFacts returns the board's facts, as Host.BoardFacts does.
func (k *Kernel) BoardFacts() BoardFacts { return k.seams.board }
