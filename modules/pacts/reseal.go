package pacts

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/seal"
)

// ResealDeliveries seals again every webhook address and secret that is
// not sealed under box's active key, so retiring an old key from the
// keyring (docs/configuration.md, "Keep the signing key") does not make them
// unreadable; it returns how many rows it changed. A row another process
// changed meanwhile is left to it, and a value that no longer opens is
// left as it is (its deliveries fail until the agent sets it again).
func ResealDeliveries(ctx context.Context, d bun.IDB, box *seal.Box) (int, error) {
	rows, err := sealedDeliveries(ctx, d)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		if !box.Stale(r.URL) && !box.Stale(r.Secret) {
			continue
		}
		url, err := box.Reseal(r.URL, urlPlace(r.AgentID))
		if err != nil {
			continue
		}
		secret, err := box.Reseal(r.Secret, secretPlace(r.AgentID))
		if err != nil {
			continue
		}
		done, err := resealDelivery(ctx, d, r, url, secret)
		if err != nil {
			return n, err
		}
		if done {
			n++
		}
	}
	return n, nil
}

// resealAtStart runs ResealDeliveries once when the board starts (a
// kernel worker that returns nil is done; an error is retried).
func (m *Module) resealAtStart(ctx context.Context) error {
	n, err := ResealDeliveries(ctx, m.db, m.dlv.opts.Seal)
	if err != nil {
		return err
	}
	if n > 0 {
		m.dlv.logger.Info("sealed pact webhooks under the board's active key", "webhooks", n)
	}
	return nil
}
