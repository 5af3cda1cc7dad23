package mandates

import (
	"context"

	"github.com/pactboard/pact/core/mandate"
)

// CLI is what pact-admin calls of this module (docs/pact-admin.md): the
// service methods the Admin API's operations call, for the person named by
// id.
type CLI struct{ m *Module }

// CLI returns the module's terminal adapter; valid once it is registered.
func (m *Module) CLI() CLI { return CLI{m} }

// IssueMandate is the module's IssueMandate.
func (c CLI) IssueMandate(ctx context.Context, by string, in IssueInput) (*mandate.Mandate, error) {
	return c.m.IssueMandate(ctx, by, in)
}

// RevokeMandate is the module's RevokeMandate.
func (c CLI) RevokeMandate(ctx context.Context, by, id string) (*Revoked, error) {
	return c.m.RevokeMandate(ctx, by, id)
}
