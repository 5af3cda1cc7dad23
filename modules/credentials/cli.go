package credentials

import (
	"context"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/credential"
)

// CLI is what pact-admin calls of this module (docs/pact-admin.md): the
// service methods the Admin API's operations call, for the person named by
// id.
type CLI struct{ s *Service }

// CLI returns the module's terminal adapter; valid once it is registered.
func (m *Module) CLI() CLI { return CLI{m.Service} }

// AddAgentKey is the service's AddAgentKey.
func (c CLI) AddAgentKey(ctx context.Context, by, agent, publicKey string) (*AddedKey, error) {
	return c.s.AddAgentKey(ctx, by, agent, publicKey)
}

// RevokeAgentKey is the service's RevokeAgentKey.
func (c CLI) RevokeAgentKey(ctx context.Context, by, agent, kid string) (int64, error) {
	return c.s.RevokeAgentKey(ctx, by, agent, kid)
}

// TrustedRoots is the service's TrustedRootsFor.
func (c CLI) TrustedRoots(ctx context.Context, by string) ([]TrustedRoot, error) {
	return c.s.TrustedRootsFor(ctx, by)
}

// AddTrustedRoot is the service's AddTrustedRoot.
func (c CLI) AddTrustedRoot(ctx context.Context, by, publicKey, human, label string) (*AddedRoot, error) {
	return c.s.AddTrustedRoot(ctx, by, publicKey, human, label)
}

// RevokeTrustedRoot is the service's RevokeTrustedRoot.
func (c CLI) RevokeTrustedRoot(ctx context.Context, by, principal string) (int64, error) {
	return c.s.RevokeTrustedRoot(ctx, by, principal)
}

// ImportCredential is the service's ImportCredential.
func (c CLI) ImportCredential(ctx context.Context, by, agentID, format, cred string,
	plugin func() (credential.Credential, error)) (*mandate.Mandate, error) {
	return c.s.ImportCredential(ctx, by, agentID, format, cred, plugin)
}
