package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/pactboard/pact/sdk/errs"
)

// allowed are the signature algorithms accepted. Asymmetric only: with HS*
// the issuer's public key could be used as an HMAC secret to forge tokens,
// and "none" is no signature at all.
var allowed = []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA}

// maxToken bounds what is parsed; real access tokens are a few KiB.
const maxToken = 16 << 10

// claims are the registered claims checked plus the identity ones returned.
type claims struct {
	Issuer        string           `json:"iss"`
	Subject       string           `json:"sub"`
	Audience      jwt.Audience     `json:"aud"` // a string or an array
	Expiry        *jwt.NumericDate `json:"exp"`
	NotBefore     *jwt.NumericDate `json:"nbf"`
	IssuedAt      *jwt.NumericDate `json:"iat"`
	Email         string           `json:"email"`
	EmailVerified looseBool        `json:"email_verified"`
	AMR           []string         `json:"amr"`
	Scope         string           `json:"scope"` // RFC 9068
	Scp           scopeList        `json:"scp"`   // Okta, Azure AD
}

// looseBool reads true, false, "true" or "false": some issuers (Cognito)
// send email_verified as a string.
type looseBool bool

func (b *looseBool) UnmarshalJSON(data []byte) error {
	switch string(bytes.Trim(data, `"`)) {
	case "true":
		*b = true
	default:
		*b = false
	}
	return nil
}

// scopeList reads scp as a space-separated string or an array of strings.
type scopeList string

func (s *scopeList) UnmarshalJSON(data []byte) error {
	var list []string
	if err := json.Unmarshal(data, &list); err == nil {
		*s = scopeList(strings.Join(list, " "))
		return nil
	}
	var one string
	if err := json.Unmarshal(data, &one); err != nil {
		return err
	}
	*s = scopeList(one)
	return nil
}

// header is the part of a JWS header looked at before any key is.
type header struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// accessTypes are the JWS types an access token may carry: RFC 9068's
// at+jwt, and the generic JWT (or none) most issuers still put on theirs.
// Any other type (an ID token's, a logout token's, a DPoP proof's) names a
// token that is not for calling an API.
var accessTypes = map[string]bool{"": true, "jwt": true, "at+jwt": true, "application/at+jwt": true}

// readHeader refuses, with a message naming the reason, tokens that are not
// compact JWS or use an algorithm outside the allow-list.
func readHeader(token string) (header, error) {
	var h header
	if token == "" {
		return h, errs.E(errs.Unauthorized, "no token")
	}
	if len(token) > maxToken {
		return h, errs.E(errs.Unauthorized, "token is larger than %d bytes", maxToken)
	}
	parts := strings.Split(token, ".")
	if len(parts) == 5 {
		return h, errs.E(errs.Unauthorized, "encrypted tokens (JWE) are not accepted; send a signed JWT")
	}
	if len(parts) != 3 {
		return h, errs.E(errs.Unauthorized, "token is not a JWT (want header.payload.signature)")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil || json.Unmarshal(raw, &h) != nil {
		return h, errs.E(errs.Unauthorized, "token header is not base64url JSON")
	}
	switch {
	case h.Alg == "" || strings.EqualFold(h.Alg, "none"):
		return h, errs.E(errs.Unauthorized, "unsigned token (alg none) refused")
	case strings.HasPrefix(strings.ToUpper(h.Alg), "HS"):
		return h, errs.E(errs.Unauthorized, "symmetric algorithm %s refused; only RS256, ES256 and EdDSA are accepted", h.Alg)
	case !accepted(h.Alg):
		return h, errs.E(errs.Unauthorized, "algorithm %q is not accepted; only RS256, ES256 and EdDSA are", h.Alg)
	case !accessTypes[strings.ToLower(h.Typ)]:
		return h, errs.E(errs.Unauthorized, "token type %q is not an access token's (at+jwt or JWT)", h.Typ)
	}
	return h, nil
}

func accepted(alg string) bool {
	for _, a := range allowed {
		if string(a) == alg {
			return true
		}
	}
	return false
}

// verifySignature checks the token's signature with the issuer's key of its
// kid (every usable key when it has none) and returns its claims, unchecked.
func (o *OIDC) verifySignature(ctx context.Context, token string) (*claims, error) {
	h, err := readHeader(token)
	if err != nil {
		return nil, err
	}
	tok, err := jwt.ParseSigned(token, allowed)
	if err != nil {
		return nil, errs.E(errs.Unauthorized, "token is malformed: %v", err)
	}
	keys, err := o.keys.lookup(ctx, h.Kid)
	if err != nil {
		return nil, err
	}
	var candidates []jose.JSONWebKey
	for _, k := range keys {
		if (k.Algorithm == "" || k.Algorithm == h.Alg) && (k.Use == "" || k.Use == "sig") {
			candidates = append(candidates, k)
		}
	}
	if len(candidates) == 0 {
		if h.Kid == "" {
			return nil, errs.E(errs.Unauthorized, "token names no key (kid) and the issuer has no %s key", h.Alg)
		}
		return nil, errs.E(errs.Unauthorized, "token is signed by an unknown key (kid %q)", h.Kid)
	}
	for _, k := range candidates {
		var raw json.RawMessage
		if tok.Claims(k.Key, &raw) != nil {
			continue // not this key, or not a signature at all
		}
		var c claims
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, errs.E(errs.Unauthorized, "token claims are malformed: %v", err)
		}
		return &c, nil
	}
	return nil, errs.E(errs.Unauthorized, "token signature does not verify with the issuer's key (kid %q)", h.Kid)
}
