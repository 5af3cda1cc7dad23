// Package authtest is an OAuth issuer for tests of the Admin API: it signs
// real JWT access tokens (ES256) with a key it generates and verifies them
// as the auth-oidc plugin does — signature by key id, issuer, audience,
// expiry with 30 s of leeway — answering errs.Unauthorized with the reason.
// Serve it through sdk/plugintest.Issuer so every answer crosses the plugin
// wire as in production.
package authtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// DefaultURL is the issuer identifier tokens carry unless Claims say otherwise.
const DefaultURL = "https://issuer.test"

const leeway = 30 * time.Second

// Issuer signs and verifies access tokens.
type Issuer struct {
	URL string
	kid string
	key *ecdsa.PrivateKey
	// Now is the clock of Verify and of default expiries.
	Now func() time.Time
}

var _ authissuer.Issuer = (*Issuer)(nil)

// New returns an issuer at DefaultURL with a fresh ES256 key.
func New(t testing.TB) *Issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	return &Issuer{URL: DefaultURL, kid: "test-key-1", key: key, Now: time.Now}
}

// Claims describe a token. Zero values take the defaults noted.
type Claims struct {
	Subject       string   // required
	Email         string   // none
	EmailVerified bool     // false
	AMR           []string // nil means ["pwd", "mfa"]; use []string{} for none
	Scope         string   // none
	Audience      []string // required
	ExpiresAt     time.Time
	Issuer        string // default: the issuer's URL
	// Kid overrides the key id in the header; SignWith signs with another key.
	Kid      string
	SignWith *ecdsa.PrivateKey
}

// Token signs c.
func (i *Issuer) Token(t testing.TB, c Claims) string {
	t.Helper()
	if c.AMR == nil {
		c.AMR = []string{"pwd", "mfa"}
	}
	if c.ExpiresAt.IsZero() {
		c.ExpiresAt = i.Now().Add(time.Hour)
	}
	if c.Issuer == "" {
		c.Issuer = i.URL
	}
	kid, key := i.kid, i.key
	if c.Kid != "" {
		kid = c.Kid
	}
	if c.SignWith != nil {
		key = c.SignWith
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	token, err := jwt.Signed(signer).Claims(jwt.Claims{
		Issuer: c.Issuer, Subject: c.Subject, Audience: c.Audience,
		Expiry: jwt.NewNumericDate(c.ExpiresAt), IssuedAt: jwt.NewNumericDate(i.Now()),
	}).Claims(extra{Email: c.Email, EmailVerified: c.EmailVerified, AMR: c.AMR, Scope: c.Scope}).Serialize()
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	return token
}

type extra struct {
	Email         string   `json:"email,omitempty"`
	EmailVerified bool     `json:"email_verified,omitempty"`
	AMR           []string `json:"amr"`
	Scope         string   `json:"scope,omitempty"`
}

// Verify checks a token this issuer signed.
func (i *Issuer) Verify(_ context.Context, r authissuer.VerifyRequest) (*authissuer.Identity, error) {
	if len(r.Audiences) == 0 {
		return nil, errs.E(errs.InvalidRequest, "no audience to check the token against")
	}
	tok, err := jwt.ParseSigned(r.Token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, errs.E(errs.Unauthorized, "token is malformed: %v", err)
	}
	if kid := tok.Headers[0].KeyID; kid != i.kid {
		return nil, errs.E(errs.Unauthorized, "token is signed by an unknown key (kid %q)", kid)
	}
	var c jwt.Claims
	var x extra
	if err := tok.Claims(&i.key.PublicKey, &c, &x); err != nil {
		return nil, errs.E(errs.Unauthorized, "token signature does not verify with the issuer's key (kid %q)", i.kid)
	}
	err = c.ValidateWithLeeway(jwt.Expected{Issuer: i.URL, AnyAudience: r.Audiences, Time: i.Now()}, leeway)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, errs.E(errs.Unauthorized, "token expired at %s", c.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, errs.E(errs.Unauthorized, "token audience %q does not include %q", []string(c.Audience), r.Audiences)
	case err != nil:
		return nil, errs.E(errs.Unauthorized, "token refused: %v", err)
	case c.Expiry == nil:
		return nil, errs.E(errs.Unauthorized, "token has no expiry (exp)")
	case c.Subject == "":
		return nil, errs.E(errs.Unauthorized, "token has no subject (sub)")
	}
	return &authissuer.Identity{Subject: c.Subject, Issuer: c.Issuer, Email: x.Email, EmailVerified: x.EmailVerified,
		AMR: x.AMR, Audience: []string(c.Audience), Scope: x.Scope, ExpiresAt: c.Expiry.Time().UTC()}, nil
}

// Metadata names the issuer.
func (i *Issuer) Metadata(context.Context) (*authissuer.Metadata, error) {
	return &authissuer.Metadata{Issuer: i.URL, AuthorizationServers: []string{i.URL}, ScopesSupported: []string{"pact"}}, nil
}
