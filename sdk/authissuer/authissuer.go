// Package authissuer is the contract of an auth issuer plugin: a separate
// process that verifies the access tokens people and agents present to the
// board (for example JWTs from an OAuth 2.1 / OIDC issuer) and describes the
// issuer the board advertises.
//
// A plugin author implements [Issuer] and calls [Serve] from main. An auth
// issuer decides who may act on the board, so operators must pin its binary
// by SHA-256; the board refuses to start an unpinned one. Never log tokens.
//
// Test an implementation in-process over real gRPC with
// [github.com/pactboard/pact/sdk/plugintest.Issuer].
package authissuer

import (
	"context"
	"time"
)

// VerifyRequest asks to verify one access token.
type VerifyRequest struct {
	Token string
	// Audiences: the token's aud must contain one of them.
	Audiences []string
}

// Identity is what a verified token says.
type Identity struct {
	Subject, Issuer, Email string
	EmailVerified          bool
	AMR                    []string
	Audience               []string
	Scope                  string
	ExpiresAt              time.Time
}

// Metadata is what the board advertises about the issuer.
type Metadata struct {
	Issuer string
	// AuthorizationServers is what the board advertises in RFC 9728 documents.
	AuthorizationServers []string
	ScopesSupported      []string
	UserinfoEndpoint     string
}

// Issuer is what an auth issuer plugin implements. Every method may be
// called concurrently.
type Issuer interface {
	// Verify: errs.Unauthorized whose message says what is wrong (expired,
	// wrong audience, unknown key, …).
	Verify(ctx context.Context, r VerifyRequest) (*Identity, error)
	// Metadata describes the issuer.
	Metadata(ctx context.Context) (*Metadata, error)
}
