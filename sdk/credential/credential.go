// Package credential is the contract of a credential plugin: a separate
// process that turns the board's verified mandate chains into credentials of
// an outside format (Tenuo, Biscuit, …), publishes signed revocation lists
// in that format, and reads outside credentials back into chain
// descriptions.
//
// A plugin author implements [Credential] and calls [Serve] from main. A
// credential plugin receives the board's signing seed, so operators must pin
// its binary by SHA-256; the board refuses to start an unpinned one. Never
// log request or response values.
//
// Test an implementation in-process over real gRPC with
// [github.com/pactboard/pact/sdk/plugintest.Credential].
package credential

import (
	"context"
	"time"
)

// Link is one ledger link, verified by the board before export.
type Link struct {
	ID, ParentID           string // ParentID "" for the root
	IssuerKind, Issuer     string // "human"|"agent", and its id
	Holder                 string
	Scope                  []string
	Limits                 map[string]float64
	DelegationsLeft, Depth int
	ExpiresAt              time.Time
}

// SigningKey is the board's key a plugin signs with.
type SigningKey struct {
	Kid string
	// Seed is the board's Ed25519 seed (32 bytes); credential plugins are
	// pinned by SHA-256 for this reason.
	Seed []byte
}

// ExportRequest asks for a credential for a verified chain.
type ExportRequest struct {
	Chain     []Link        // root first
	HolderKey []byte        // the agent's registered Ed25519 public key (32 bytes)
	TTL       time.Duration // cap on the leaf's lifetime
	Now       time.Time
	Key       SigningKey
}

// Exported is a credential minted for a chain.
type Exported struct {
	Format     string              // "tenuo", "biscuit", …
	Field      string              // the claim result's field name: "warrant_stack", "biscuit"
	Credential string              // text form (base64/base64url)
	ExternalID string              // id of the whole credential
	LinkIDs    map[string][]string // ledger link id → every outside id minted for it (revocation)
	ExpiresAt  time.Time
}

// RevocationRequest asks for a signed revocation list.
type RevocationRequest struct {
	Revoked []string // outside ids
	Version int64
	Now     time.Time
	Key     SigningKey
}

// RevocationList is a published revocation list in the plugin's format.
type RevocationList struct {
	ContentType string
	Body        []byte
}

// ImportRequest asks to read an outside credential.
type ImportRequest struct {
	Credential   string
	TrustedRoots [][]byte // live trusted roots' Ed25519 public keys
	HolderKeys   [][]byte // the agent's live registered keys
	Now          time.Time
}

// ImportedLink is what becomes a root mandate on the board.
type ImportedLink struct {
	Scope           []string
	Limits          map[string]float64
	ExpiresAt       time.Time
	ExternalID      string
	IssuerPrincipal []byte // the trusted root that issued it
	MaxDelegations  int
}

// Credential is what a credential plugin implements. Every method may be
// called concurrently.
type Credential interface {
	// Format names the credential format ("tenuo", "biscuit", …).
	Format(ctx context.Context) (string, error)
	// Export: errs.InvalidRequest whose message is the credential_note when
	// none can be issued.
	Export(ctx context.Context, r ExportRequest) (*Exported, error)
	// RevocationList signs a revocation list of the given outside ids.
	RevocationList(ctx context.Context, r RevocationRequest) (*RevocationList, error)
	// Import: errs.ChainBroken, errs.ProjectMismatch or errs.InvalidRequest.
	Import(ctx context.Context, r ImportRequest) (*ImportedLink, error)
}
