package audit

import "context"

// CLI is what pact-admin calls of this module (docs/pact-admin.md): the
// service methods the Admin API's operations call, for the person named by
// id.
type CLI struct{ m *Module }

// CLI returns the module's terminal adapter; valid once it is registered.
func (m *Module) CLI() CLI { return CLI{m} }

// ErasePayload is the module's ErasePayload.
func (c CLI) ErasePayload(ctx context.Context, by string, entryID int64) (bool, error) {
	return c.m.ErasePayload(ctx, by, entryID)
}
