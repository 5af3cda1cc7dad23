package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// RevocationPayload is the signed payload of the revocation document. Its
// fields are in sorted key order, so encoding/json writes canonical JSON.
type RevocationPayload struct {
	Format   string   `json:"format"`
	IssuedAt string   `json:"issued_at"`
	Revoked  []string `json:"revoked"`
	Version  int64    `json:"version"`
}

// revocationDoc is the published document; keys sorted.
type revocationDoc struct {
	Payload   string `json:"payload"`
	Signature string `json:"signature"`
}

// signRevocations writes {"payload": <canonical JSON>, "signature":
// "ed25519:<kid>:<base64url>"}, signed over the payload's UTF-8 bytes.
func signRevocations(r credential.RevocationRequest) ([]byte, error) {
	if len(r.Key.Seed) != ed25519.SeedSize || r.Key.Kid == "" || strings.Contains(r.Key.Kid, ":") {
		return nil, errs.E(errs.InvalidRequest, "the signing key needs a kid without ':' and a 32-byte Ed25519 seed")
	}
	revoked := make([]string, 0, len(r.Revoked))
	for _, id := range r.Revoked {
		if _, err := hex.DecodeString(id); err != nil || id == "" || id != strings.ToLower(id) {
			return nil, errs.E(errs.InvalidRequest, "revoked id %q is not a lowercase hex Biscuit revocation id", id)
		}
		revoked = append(revoked, id)
	}
	payload, err := canonical(RevocationPayload{
		Format: Format, IssuedAt: r.Now.UTC().Format("2006-01-02T15:04:05Z"), Revoked: revoked, Version: r.Version,
	})
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(ed25519.NewKeyFromSeed(r.Key.Seed), payload)
	return canonical(revocationDoc{Payload: string(payload), Signature: "ed25519:" + r.Key.Kid + ":" + b64url(sig)})
}

// VerifyRevocationList checks a revocation document against the board's
// public keys by kid (the JWKS) and returns its payload.
func VerifyRevocationList(body []byte, keys map[string]ed25519.PublicKey) (*RevocationPayload, error) {
	var doc revocationDoc
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("revocation list: %w", err)
	}
	alg, rest, _ := strings.Cut(doc.Signature, ":")
	kid, enc, ok := strings.Cut(rest, ":")
	if alg != "ed25519" || !ok {
		return nil, errors.New("revocation list: signature is not ed25519:<kid>:<base64url>")
	}
	key, ok := keys[kid]
	if !ok || len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("revocation list: unknown key %q", kid)
	}
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil || !ed25519.Verify(key, []byte(doc.Payload), sig) {
		return nil, errors.New("revocation list: bad signature")
	}
	var p RevocationPayload
	if err := json.Unmarshal([]byte(doc.Payload), &p); err != nil {
		return nil, fmt.Errorf("revocation list payload: %w", err)
	}
	if p.Format != Format {
		return nil, fmt.Errorf("revocation list: format %q, want %q", p.Format, Format)
	}
	return &p, nil
}

// canonical is compact JSON without HTML escaping.
func canonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
