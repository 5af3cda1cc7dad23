package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pactboard/pact/sdk/tenuo"
)

// maxBody caps what the verifier reads from the board, so a misbehaving
// board cannot exhaust its memory.
const maxBody = 8 << 20

// jwks is the subset of the board's /.well-known/pact-keys.json the
// verifier reads: OKP Ed25519 keys with their public half in x.
type jwks struct {
	Keys []struct {
		Kty string `json:"kty"`
		Crv string `json:"crv"`
		Kid string `json:"kid"`
		X   string `json:"x"`
	} `json:"keys"`
}

// fetch GETs one board document and returns its body, refusing anything
// but a 200.
func fetch(ctx context.Context, c *http.Client, url string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, nil, err
	}
	if len(b) > maxBody {
		return nil, nil, fmt.Errorf("GET %s: body over %d bytes", url, maxBody)
	}
	return b, resp.Header, nil
}

// fetchKeys reads the board's JWKS and returns its Ed25519 keys, the only
// keys the verifier trusts. A document with no usable key is an error.
func fetchKeys(ctx context.Context, c *http.Client, board string) ([]ed25519.PublicKey, error) {
	b, _, err := fetch(ctx, c, strings.TrimRight(board, "/")+"/.well-known/pact-keys.json")
	if err != nil {
		return nil, err
	}
	var doc jwks
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("pact-keys.json: %w", err)
	}
	var keys []ed25519.PublicKey
	for _, k := range doc.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" {
			continue
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			continue
		}
		keys = append(keys, ed25519.PublicKey(x))
	}
	if len(keys) == 0 {
		return nil, errors.New("pact-keys.json: no Ed25519 key")
	}
	return keys, nil
}

// fetchSRL reads the board's Tenuo revocation list and verifies it against
// the trusted keys; a list none of them signed is an error.
func fetchSRL(ctx context.Context, c *http.Client, board string, keys []ed25519.PublicKey) (*tenuo.SRL, error) {
	b, h, err := fetch(ctx, c, strings.TrimRight(board, "/")+"/.well-known/pact-revocations/tenuo")
	if err != nil {
		return nil, err
	}
	if ct := h.Get("Content-Type"); ct != "application/octet-stream" {
		return nil, fmt.Errorf("revocation list: content type %q", ct)
	}
	for _, k := range keys {
		if s, err := tenuo.ParseSRL(b, k); err == nil {
			if v := h.Get("X-Pact-Revocations-Version"); v != "" && v != fmt.Sprint(s.Version) {
				return nil, fmt.Errorf("revocation list: header version %s, signed version %d", v, s.Version)
			}
			return s, nil
		}
	}
	return nil, errors.New("revocation list: not signed by a trusted board key")
}
