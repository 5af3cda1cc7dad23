// Command auth-oidc is PACT Board's OAuth 2.1 / OpenID Connect access-token
// verifier plugin. It checks JWT access tokens from one issuer against the
// issuer's published keys (JWKS), so the board accepts people signed in with
// any standards-following identity provider. The board's plugin host runs it
// as a subprocess.
//
// Environment (passed explicitly by the host):
//
//   - PACT_OIDC_ISSUER (required): the issuer identifier, exactly as tokens
//     carry it in iss, e.g. https://login.example.com/realms/pact. Metadata
//     is discovered from <issuer>/.well-known/oauth-authorization-server,
//     falling back to <issuer>/.well-known/openid-configuration. It must be
//     https, except http on a loopback host for local development.
//   - PACT_OIDC_SCOPES (optional): space-separated scopes the board
//     advertises; default "pact".
//
// Without PACT_OIDC_ISSUER the plugin exits at once with a message saying
// so, which the host logs.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/pactboard/pact/sdk/authissuer"
)

func main() {
	o, err := New(Options{
		Issuer: os.Getenv("PACT_OIDC_ISSUER"),
		Scopes: strings.Fields(os.Getenv("PACT_OIDC_SCOPES")),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "auth-oidc:", err)
		os.Exit(1)
	}
	authissuer.Serve(o)
}
