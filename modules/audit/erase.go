package audit

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// ErasePayload erases the payload of one log entry of the acting owner's
// organization (PDPA); the chain still verifies. It reports false when the
// payload was erased before. Refusals: forbidden, not_found.
func (m *Module) ErasePayload(ctx context.Context, by string, entryID int64) (bool, error) {
	var erased bool
	err := m.identity.Act(ctx, by, identity.Owner, "admin.payload.erase", map[string]any{"entry_id": entryID},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			org, err := m.log.EntryOrg(ctx, tx, entryID)
			if err != nil {
				return err
			}
			if org != p.OrgID {
				return errs.E(errs.NotFound, "entry %d does not exist", entryID)
			}
			erased, err = m.log.ErasePayload(ctx, tx, entryID)
			return err
		})
	if err != nil && !errs.IsRefusal(err) {
		return false, fmt.Errorf("erase the payload of entry %d: %w", entryID, err)
	}
	return erased, err
}
