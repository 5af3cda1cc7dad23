package mandate

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// Default returns the id of the live mandate agent acts under when nothing
// names one: its root mandate while live, else its shallowest, oldest live
// one. Live is judged by the service's clock, as Verify judges it. It only
// chooses; the caller still verifies the chain it uses. Refusal:
// mandate_expired (the agent holds no live mandate).
func (s *Service) Default(ctx context.Context, tx bun.IDB, agent string) (string, error) {
	var ids []string
	err := tx.NewRaw(`SELECT m.id::text FROM mandates m JOIN agents a ON a.id = m.holder
		WHERE m.holder = ? AND m.revoked_at IS NULL AND m.expires_at > ?
		ORDER BY (m.id = a.root_mandate_id) DESC, m.depth, m.created_at LIMIT 1`, agent, s.now()).Scan(ctx, &ids)
	if err != nil {
		return "", fmt.Errorf("mandate: default of agent %s: %w", agent, err)
	}
	if len(ids) == 0 {
		return "", errs.E(errs.MandateExpired, "agent %s holds no live mandate", agent)
	}
	return ids[0], nil
}
