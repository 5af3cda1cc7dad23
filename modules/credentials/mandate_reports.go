package credentials

import (
	"context"

	"github.com/uptrace/bun"
)

// RevocationsPublished answers seams.MandateCredentials, for mandate
// administration (modules/mandates): it returns the mandates among ids some
// outside id minted for which is on a published revocation list.
func (s *Service) RevocationsPublished(ctx context.Context, tx bun.IDB, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	published, err := revokedMandates(ctx, tx, ids)
	for _, id := range published {
		out[id] = true
	}
	return out, err
}
