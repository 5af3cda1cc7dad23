package credentials

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// mandateCredentials tells mandate administration (modules/mandates) about
// the outside credentials minted for mandates, through the kernel's
// kernel.MandateCredentials.
type mandateCredentials struct{}

// RevocationsPublished returns the mandates among ids some outside id
// minted for which is on a published revocation list.
func (mandateCredentials) RevocationsPublished(ctx context.Context, tx bun.IDB, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	var published []string
	err := tx.NewRaw(`SELECT DISTINCT l.mandate_id::text FROM credential_links l
		JOIN credential_revocations r ON r.external_id = l.external_id
		WHERE l.mandate_id = ANY(?::uuid[])`, pgdialect.Array(ids)).Scan(ctx, &published)
	for _, id := range published {
		out[id] = true
	}
	return out, err
}
