package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

var t0 = time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)

const aud = "https://board.example.com/mcp/a/builder"

func setup(t *testing.T) (*testIssuer, *OIDC, *clock) {
	t.Helper()
	is := newTestIssuer(t)
	clk := &clock{t: t0}
	o, err := New(Options{Issuer: is.srv.URL, Client: is.srv.Client(), Now: clk.now})
	require.NoError(t, err)
	return is, o, clk
}

func (is *testIssuer) claims(now time.Time) tokenClaims {
	return tokenClaims{Claims: jwt.Claims{
		Issuer: is.srv.URL, Subject: "user-1", Audience: jwt.Audience{"other", aud},
		Expiry: jwt.NewNumericDate(now.Add(10 * time.Minute)), IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
	}, Email: "ann@example.com", EmailVerified: true, AMR: []string{"pwd", "mfa"}, Scope: "pact openid"}
}

func verify(t *testing.T, o *OIDC, token string) (*authissuer.Identity, error) {
	t.Helper()
	return o.Verify(t.Context(), authissuer.VerifyRequest{Token: token, Audiences: []string{"https://board.example.com/admin", aud}})
}

// requireRefused checks the token is errs.Unauthorized with msg in its message.
func requireRefused(t *testing.T, err error, msg string) {
	t.Helper()
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err), "%v", err)
	e, _ := errs.As(err)
	require.Contains(t, e.Message, msg)
}

func TestVerifyReturnsTheIdentity(t *testing.T) {
	is, o, _ := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	id, err := verify(t, o, a.sign(t, is.claims(t0)))
	require.NoError(t, err)
	require.Equal(t, &authissuer.Identity{
		Subject: "user-1", Issuer: is.srv.URL, Email: "ann@example.com", EmailVerified: true,
		AMR: []string{"pwd", "mfa"}, Audience: []string{"other", aud}, Scope: "pact openid", ExpiresAt: t0.Add(10 * time.Minute),
	}, id)
}

func TestEveryAllowedAlgorithm(t *testing.T) {
	is, o, _ := setup(t)
	keys := []*signingKey{rsaKey(t, "rs"), ecKey(t, "es"), edKey(t, "ed")}
	is.publish(keys...)
	for _, k := range keys {
		_, err := verify(t, o, k.sign(t, is.claims(t0)))
		require.NoError(t, err, string(k.alg))
	}
}

func TestKeyRotation(t *testing.T) {
	is, o, clk := setup(t)
	a, b := rsaKey(t, "A"), ecKey(t, "B")
	is.publish(a)
	_, err := verify(t, o, a.sign(t, is.claims(clk.now())))
	require.NoError(t, err, "a token signed with kid A is accepted")
	require.EqualValues(t, 1, is.jwksServed.Load())

	// The issuer rotates: B only. A B-signed token is accepted without a
	// restart: its unknown kid fetches the keys again.
	is.publish(b)
	clk.advance(31 * time.Second)
	_, err = verify(t, o, b.sign(t, is.claims(clk.now())))
	require.NoError(t, err, "a token signed with the new kid B is accepted")
	require.EqualValues(t, 2, is.jwksServed.Load())

	// A is gone from the refreshed cache.
	_, err = verify(t, o, a.sign(t, is.claims(clk.now())))
	requireRefused(t, err, `token is signed by an unknown key (kid "A")`)
	clk.advance(31 * time.Second)
	_, err = verify(t, o, a.sign(t, is.claims(clk.now())))
	requireRefused(t, err, `unknown key (kid "A")`)
	require.EqualValues(t, 3, is.jwksServed.Load(), "looking again found no A either")
}

func TestRemovedKeyStopsWorkingAfterMaxAge(t *testing.T) {
	is, o, clk := setup(t)
	a, b := rsaKey(t, "A"), edKey(t, "B")
	is.publish(a, b)
	_, err := verify(t, o, a.sign(t, is.claims(clk.now())))
	require.NoError(t, err)
	is.publish(b)
	clk.advance(59 * time.Minute)
	_, err = verify(t, o, a.sign(t, is.claims(clk.now())))
	require.NoError(t, err, "A is still cached")
	clk.advance(time.Minute)
	_, err = verify(t, o, a.sign(t, is.claims(clk.now())))
	requireRefused(t, err, "unknown key")
}

func TestUnknownKidRefreshIsRateLimited(t *testing.T) {
	is, o, clk := setup(t)
	a, stranger := rsaKey(t, "A"), ecKey(t, "")
	is.publish(a)
	_, err := verify(t, o, a.sign(t, is.claims(clk.now())))
	require.NoError(t, err)
	for i := range 20 {
		k := &signingKey{kid: fmt.Sprintf("made-up-%d", i), alg: stranger.alg, priv: stranger.priv}
		_, err := verify(t, o, k.sign(t, is.claims(clk.now())))
		requireRefused(t, err, "unknown key")
		clk.advance(time.Second)
	}
	require.EqualValues(t, 1, is.jwksServed.Load(), "20 unknown kids within 30 s fetch nothing")
	clk.advance(11 * time.Second)
	_, err = verify(t, o, (&signingKey{"made-up-x", stranger.alg, stranger.priv}).sign(t, is.claims(clk.now())))
	requireRefused(t, err, "unknown key")
	require.EqualValues(t, 2, is.jwksServed.Load(), "then one fetch")
}

func TestRefusals(t *testing.T) {
	is, o, _ := setup(t)
	a, other := rsaKey(t, "A"), rsaKey(t, "A")
	is.publish(a)
	c := is.claims(t0)
	with := func(f func(*tokenClaims)) tokenClaims { x := c; f(&x); return x }

	pubDER, err := x509.MarshalPKIXPublicKey(a.priv.Public())
	require.NoError(t, err)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})

	for _, tt := range []struct{ name, token, msg string }{
		{"WrongAudience", a.sign(t, with(func(c *tokenClaims) { c.Audience = jwt.Audience{"https://elsewhere.example"} })),
			`token audience ["https://elsewhere.example"] does not include`},
		{"Expired", a.sign(t, with(func(c *tokenClaims) { c.Expiry = jwt.NewNumericDate(t0.Add(-31 * time.Second)) })),
			"token expired at 2026-11-29T21:59:29Z"},
		{"NoExpiry", a.sign(t, with(func(c *tokenClaims) { c.Expiry = nil })), "token has no expiry"},
		{"NotYetValid", a.sign(t, with(func(c *tokenClaims) { c.NotBefore = jwt.NewNumericDate(t0.Add(time.Minute)) })),
			"token is not valid before 2026-11-29T22:01:00Z"},
		{"IssuedInTheFuture", a.sign(t, with(func(c *tokenClaims) { c.IssuedAt = jwt.NewNumericDate(t0.Add(time.Minute)) })),
			"token was issued in the future"},
		{"WrongIssuer", a.sign(t, with(func(c *tokenClaims) { c.Issuer = "https://evil.example" })),
			`token issuer "https://evil.example" is not`},
		{"NoSubject", a.sign(t, with(func(c *tokenClaims) { c.Subject = "" })), "token has no subject"},
		{"AlgNone", unsigned(c), "unsigned token (alg none) refused"},
		{"HS256WithThePublicKey", hmacSigned(t, "HS256", "A", pubPEM, c), "symmetric algorithm HS256 refused"},
		{"HS256WithTheJWK", hmacSigned(t, "HS256", "A", pubDER, c), "symmetric algorithm HS256 refused"},
		{"RS512", rawToken(map[string]any{"alg": "RS512", "kid": "A"}, c, "sig"), `algorithm "RS512" is not accepted`},
		{"UnknownKey", ecKey(t, "Z").sign(t, c), `token is signed by an unknown key (kid "Z")`},
		{"ForgedWithTheSameKid", other.sign(t, c), `token signature does not verify with the issuer's key (kid "A")`},
		{"TamperedClaims", tamper(a.sign(t, c)), "token signature does not verify"},
		{"Encrypted", "a.b.c.d.e", "encrypted tokens (JWE) are not accepted"},
		{"Garbage", "not-a-jwt", "token is not a JWT"},
		{"BadHeader", "%%%.e30.sig", "token header is not base64url JSON"},
		{"Empty", "", "no token"},
		{"IDTokenType", typed(t, a, "id+jwt", c), `token type "id+jwt" is not an access token's`},
		{"LogoutTokenType", typed(t, a, "logout+jwt", c), `token type "logout+jwt" is not an access token's`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := verify(t, o, tt.token)
			requireRefused(t, err, tt.msg)
		})
	}
}

// typed signs c with k under the JWS type typ.
func typed(t *testing.T, k *signingKey, typ string, c tokenClaims) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	require.NoError(t, err)
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	require.NoError(t, err)
	return tok
}

// Access tokens typed JWT, at+jwt or untyped are accepted (finding 12).
func TestAccessTokenTypes(t *testing.T) {
	is, o, _ := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	for _, typ := range []string{"JWT", "at+jwt", "application/at+jwt", "AT+JWT"} {
		_, err := verify(t, o, typed(t, a, typ, is.claims(t0)))
		require.NoError(t, err, typ)
	}
}

func TestLeeway(t *testing.T) {
	is, o, _ := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	c := is.claims(t0)
	c.Expiry = jwt.NewNumericDate(t0.Add(-29 * time.Second))
	c.NotBefore = jwt.NewNumericDate(t0.Add(29 * time.Second))
	c.IssuedAt = jwt.NewNumericDate(t0.Add(29 * time.Second))
	_, err := verify(t, o, a.sign(t, c))
	require.NoError(t, err, "30 s of clock skew is tolerated")
}

func TestClaimVariants(t *testing.T) {
	is, o, _ := setup(t)
	a := rsaKey(t, "A")
	is.publish(a)
	c := is.claims(t0)
	c.Audience = jwt.Audience{aud}
	c.Scope, c.Scp, c.EmailVerified = "", []string{"pact", "profile"}, "true"
	id, err := verify(t, o, a.sign(t, c))
	require.NoError(t, err)
	require.Equal(t, "pact profile", id.Scope)
	require.True(t, id.EmailVerified)

	c.Scp, c.EmailVerified = "pact", "false"
	id, err = verify(t, o, a.sign(t, c))
	require.NoError(t, err)
	require.Equal(t, "pact", id.Scope)
	require.False(t, id.EmailVerified)
}

func TestTokenWithoutKid(t *testing.T) {
	is, o, _ := setup(t)
	a, b := rsaKey(t, "A"), edKey(t, "B")
	is.publish(a, b)
	anon := &signingKey{"", b.alg, b.priv}
	_, err := verify(t, o, anon.sign(t, is.claims(t0)))
	require.NoError(t, err, "every key of the token's algorithm is tried")
}

func TestNoAudienceToCheck(t *testing.T) {
	_, o, _ := setup(t)
	_, err := o.Verify(t.Context(), authissuer.VerifyRequest{Token: "x.y.z"})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
}

func unsigned(c tokenClaims) string {
	return rawToken(map[string]any{"alg": "none", "typ": "JWT"}, c, "")
}

// rawToken assembles header.payload.signature by hand, for tokens no JOSE
// library would make.
func rawToken(h map[string]any, c tokenClaims, sig string) string {
	hj, _ := json.Marshal(h)
	cj, _ := json.Marshal(c)
	enc := base64.RawURLEncoding.EncodeToString
	return enc(hj) + "." + enc(cj) + "." + sig
}

// hmacSigned is the classic key-confusion forgery: HMAC keyed with the
// issuer's public key, which anyone can download.
func hmacSigned(t *testing.T, alg, kid string, secret []byte, c tokenClaims) string {
	t.Helper()
	unsignedPart := rawToken(map[string]any{"alg": alg, "kid": kid, "typ": "JWT"}, c, "")
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(unsignedPart[:len(unsignedPart)-1]))
	return unsignedPart + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// tamper changes the payload of a signed token and keeps its signature.
func tamper(token string) string {
	parts := strings.Split(token, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	m["sub"] = "admin"
	raw, _ = json.Marshal(m)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "." + parts[2]
}

func TestConcurrentVerifiesShareOneRefresh(t *testing.T) {
	is, o, clk := setup(t)
	a, b := rsaKey(t, "A"), ecKey(t, "B")
	is.publish(a)
	_, err := verify(t, o, a.sign(t, is.claims(clk.now())))
	require.NoError(t, err)
	is.publish(a, b)
	clk.advance(time.Minute)
	tokA, tokB := a.sign(t, is.claims(clk.now())), b.sign(t, is.claims(clk.now()))

	errc := make(chan error, 16)
	for i := range 16 {
		go func() {
			tok := tokB
			if i%2 == 0 {
				tok = tokA
			}
			_, err := verify(t, o, tok)
			errc <- err
		}()
	}
	for range 16 {
		require.NoError(t, <-errc)
	}
	require.EqualValues(t, 2, is.jwksServed.Load(), "the new kid was fetched once for everyone")
}
