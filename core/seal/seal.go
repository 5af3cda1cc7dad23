// Package seal keeps the few secrets the board must be able to read back
// (an organization's Slack webhook URL, a notify destination's URL and
// signing secret) sealed in the database: AES-256-GCM under a key derived
// with HKDF-SHA256 from each key of the board's keyring. A database dump
// alone then reveals none of them. Tokens are not sealed: the board keeps
// only their hashes.
//
// A sealed value is "sealed:v1:<kid>:<base64url(nonce ‖ ciphertext)>". The
// caller names the place a value belongs to (for example
// "notify_destinations.secret/<org>"); it is authenticated with the value,
// so a value copied to another place or organization does not open.
// Rotating the keyring rotates the sealing keys: values sealed under a key
// still in the keyring open, and Stale tells which to seal again.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/pactboard/pact/core/mandate"
)

// Prefix starts every sealed value.
const Prefix = "sealed:v1:"

// hkdfInfo separates the sealing keys from the signing keys they come from.
const hkdfInfo = "pact-board seal v1"

// Box seals and opens values. It is immutable and safe for concurrent use.
type Box struct {
	active string
	aeads  map[string]cipher.AEAD
}

// New returns a box whose keys derive from every key of k; the active key
// seals.
func New(k *mandate.Keyring) *Box {
	b := &Box{active: k.ActiveKid(), aeads: map[string]cipher.AEAD{}}
	for _, kid := range k.Kids() {
		seed, _ := k.Seed(kid)
		// With SHA-256, a 32-byte key and AES, none of these can fail.
		key, err := hkdf.Key(sha256.New, seed, nil, hkdfInfo, 32)
		if err != nil {
			panic(err)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			panic(err)
		}
		if b.aeads[kid], err = cipher.NewGCM(block); err != nil {
			panic(err)
		}
	}
	return b
}

// Seal seals plain for place.
func (b *Box) Seal(plain, place string) (string, error) {
	aead := b.aeads[b.active]
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := aead.Seal(nonce, nonce, []byte(plain), []byte(place))
	return Prefix + b.active + ":" + base64.RawURLEncoding.EncodeToString(out), nil
}

// ErrUnknownKey is wrapped by Open for a value sealed under a key the
// keyring no longer holds: only entering the secret again recovers.
var ErrUnknownKey = errors.New("sealed under a key the board no longer has")

// Open returns the plain text of value, sealed for place. A value that is
// not sealed (written before sealing, and not yet sealed again) is
// returned as it is.
func (b *Box) Open(value, place string) (string, error) {
	rest, ok := strings.CutPrefix(value, Prefix)
	if !ok {
		return value, nil
	}
	kid, enc, ok := strings.Cut(rest, ":")
	if !ok {
		return "", fmt.Errorf("sealed value for %s is malformed", place)
	}
	aead, known := b.aeads[kid]
	if !known {
		return "", fmt.Errorf("value for %s: %w (key %q); enter it again", place, ErrUnknownKey, kid)
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return "", fmt.Errorf("sealed value for %s is malformed", place)
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(place))
	if err != nil {
		return "", fmt.Errorf("sealed value for %s does not open: altered, or sealed for another place", place)
	}
	return string(plain), nil
}

// Stale reports whether value should be sealed again: it is not sealed,
// or not under the active key.
func (b *Box) Stale(value string) bool {
	rest, ok := strings.CutPrefix(value, Prefix)
	return !ok || !strings.HasPrefix(rest, b.active+":")
}

// Reseal opens value and seals it again under the active key.
func (b *Box) Reseal(value, place string) (string, error) {
	plain, err := b.Open(value, place)
	if err != nil {
		return "", err
	}
	return b.Seal(plain, place)
}
