package pacts

import (
	"context"
	"database/sql"
	"slices"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// A stop reaches every channel (docs/security.md, "A stop reaches every
// channel"; SEC-015): before the pact stream writes a batch and before a
// webhook send goes out, the agent's standing is read again, in the same
// snapshot as what is about to be pushed, so nothing that committed after
// a ban, a pause, a revocation, a removal or a kill switch reaches it.

// hearing is what an agent may hear of pacts now: the projects it is a
// member of where a mandate it holds, whose whole chain verifies, covers
// pact.read.
type hearing struct {
	org      string
	projects []string
}

// covers reports whether every project of want is still heard.
func (h hearing) covers(want []string) bool {
	for _, p := range want {
		if !slices.Contains(h.projects, p) {
			return false
		}
	}
	return true
}

// readSnapshot is one read-only snapshot: a standing read in it and the
// rows read after it see the same commits.
func readSnapshot() *sql.TxOptions {
	return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
}

// hears reads agent's standing as a pact channel needs it: the gate's
// refusals (agent_unknown, agent_paused, system_halted) as Admit answers
// them, and forbidden when no mandate it holds covers pact.read on any of
// its projects.
func (m *Module) hears(ctx context.Context, tx bun.IDB, agent string) (hearing, error) {
	who, err := identity.Admit(ctx, m.db, tx, agent)
	if err != nil {
		return hearing{}, err
	}
	projects, err := m.mandates.Reach(ctx, tx, agent, ReadAction, who.Projects)
	if err != nil {
		return hearing{}, err
	}
	if len(projects) == 0 {
		return hearing{org: who.OrgID}, errs.E(errs.Forbidden,
			"agent %s holds no live mandate covering %s on any of its projects, so it hears no pact; ask its person "+
				"to issue it one (or to undo what stopped it), then connect again", agent, ReadAction)
	}
	return hearing{org: who.OrgID, projects: projects}, nil
}
