package mandate

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Signature schemes and the keyring's defaults.
const (
	// SignaturePrefix starts every Ed25519 signature:
	// "ed25519:<kid>:<base64url-no-pad signature>".
	SignaturePrefix = "ed25519"
	// DerivedKid names the one key derived from PACT_SIGNING_KEY when
	// PACT_BOARD_KEYS is unset.
	DerivedKid = "derived-1"
	// MinSigningKeyLen is the shortest PACT_SIGNING_KEY accepted.
	MinSigningKeyLen = 32
	// derivedSeedPrefix is hashed with PACT_SIGNING_KEY into the derived seed.
	derivedSeedPrefix = "pact-board-ed25519/"
)

// Keyring holds the board's Ed25519 keys: the first signs, every one
// verifies, so rotating is putting a new key first and keeping the old one
// until the mandates it signed have expired. It also keeps PACT_SIGNING_KEY,
// under which mandates signed before Ed25519 carry an HMAC. A Keyring is
// immutable and safe for concurrent use; build one with [ParseKeyring].
type Keyring struct {
	kids []string // keyring order; kids[0] signs
	keys map[string]ed25519.PrivateKey
	hmac []byte // nil: legacy HMAC signatures never verify
	jwks []byte // the JWKS document, encoded once
}

// ParseKeyring builds the keyring from PACT_BOARD_KEYS and PACT_SIGNING_KEY.
//
// boardKeys is "kid=<base64url 32-byte seed>" entries separated by commas,
// newest first; a kid is non-empty with no ':', padding on the seed is
// optional. When boardKeys is empty the keyring has one key, "derived-1",
// whose seed is SHA-256("pact-board-ed25519/" + signingKey). signingKey must
// be at least 32 characters whenever it is needed: always without
// boardKeys, and with boardKeys unless it is empty (then HMAC signatures
// simply never verify).
//
// It returns a plain error, not a refusal, for a malformed entry, a bad seed,
// a duplicate kid, a spec with no keys or a short signing key: the board must
// not start with a keyring it cannot trust.
func ParseKeyring(boardKeys, signingKey string) (*Keyring, error) {
	k := &Keyring{keys: map[string]ed25519.PrivateKey{}}
	if boardKeys == "" || signingKey != "" {
		if utf8.RuneCountInString(signingKey) < MinSigningKeyLen {
			return nil, errors.New("PACT_SIGNING_KEY must be set to at least 32 characters")
		}
		k.hmac = []byte(signingKey)
	}
	if boardKeys == "" {
		seed := sha256.Sum256([]byte(derivedSeedPrefix + signingKey))
		k.add(DerivedKid, seed[:])
	} else {
		for entry := range strings.SplitSeq(boardKeys, ",") {
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			kid, seedText, found := strings.Cut(entry, "=")
			if !found || kid == "" || strings.Contains(kid, ":") {
				return nil, errors.New("PACT_BOARD_KEYS entries look like kid=<base64url seed>; a kid has no ':'")
			}
			seed, err := b64urlDecode(seedText)
			if err != nil {
				return nil, fmt.Errorf("PACT_BOARD_KEYS key %s is not base64url", kid)
			}
			if len(seed) != ed25519.SeedSize {
				return nil, fmt.Errorf("PACT_BOARD_KEYS key %s must be a 32-byte seed", kid)
			}
			if _, dup := k.keys[kid]; dup {
				return nil, fmt.Errorf("PACT_BOARD_KEYS lists %s twice", kid)
			}
			k.add(kid, seed)
		}
		if len(k.kids) == 0 {
			return nil, errors.New("PACT_BOARD_KEYS has no keys")
		}
	}
	jwks, err := json.Marshal(k.JWKS())
	if err != nil {
		return nil, fmt.Errorf("encode the JWKS: %w", err)
	}
	k.jwks = jwks
	return k, nil
}

func (k *Keyring) add(kid string, seed []byte) {
	k.kids = append(k.kids, kid)
	k.keys[kid] = ed25519.NewKeyFromSeed(seed)
}

// NewKeyEntry returns a fresh PACT_BOARD_KEYS entry, "<YYYYMMDD>=<base64url
// seed>" with the date of now in UTC as its kid, for `pact-admin key-new`. It
// fails only if rand does.
func NewKeyEntry(now time.Time, rand io.Reader) (string, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(rand, seed); err != nil {
		return "", fmt.Errorf("read a key seed: %w", err)
	}
	return now.UTC().Format("20060102") + "=" + b64url(seed), nil
}

// ActiveKid returns the kid of the key that signs.
func (k *Keyring) ActiveKid() string { return k.kids[0] }

// Kids returns every kid, in keyring order.
func (k *Keyring) Kids() []string { return append([]string(nil), k.kids...) }

// Sign signs payload with the active key:
// "ed25519:<kid>:<base64url-no-pad signature>".
func (k *Keyring) Sign(payload []byte) string {
	kid := k.kids[0]
	return SignaturePrefix + ":" + kid + ":" + b64url(ed25519.Sign(k.keys[kid], payload))
}

// VerifySignature reports whether sig signs payload. An "ed25519:" signature
// is checked with the key its kid names (an unknown kid fails); any other
// string is a legacy lowercase hex HMAC-SHA256 under PACT_SIGNING_KEY,
// compared in constant time.
func (k *Keyring) VerifySignature(payload []byte, sig string) bool {
	if strings.HasPrefix(sig, SignaturePrefix+":") {
		parts := strings.Split(sig, ":")
		if len(parts) != 3 {
			return false
		}
		key, ok := k.keys[parts[1]]
		if !ok {
			return false
		}
		raw, err := b64urlDecode(parts[2])
		if err != nil {
			return false
		}
		return ed25519.Verify(key.Public().(ed25519.PublicKey), payload, raw)
	}
	if k.hmac == nil {
		return false
	}
	return hmac.Equal([]byte(sig), []byte(LegacyHMAC(k.hmac, payload)))
}

// LegacyHMAC returns the lowercase hex HMAC-SHA256 of payload under key: how
// mandates were signed before Ed25519.
func LegacyHMAC(key, payload []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	return hex.EncodeToString(mac.Sum(nil))
}

// JWKS is the public half of a keyring as a JWK Set (RFC 8037 OKP keys).
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// JWK is one Ed25519 public key. It never carries a private part.
type JWK struct {
	Kty string `json:"kty"` // "OKP"
	Crv string `json:"crv"` // "Ed25519"
	Kid string `json:"kid"`
	Use string `json:"use"` // "sig"
	Alg string `json:"alg"` // "EdDSA"
	X   string `json:"x"`   // base64url of the raw 32-byte public key
}

// JWKS returns every public key, in keyring order, for verifiers outside the
// board.
func (k *Keyring) JWKS() JWKS {
	out := JWKS{Keys: make([]JWK, 0, len(k.kids))}
	for _, kid := range k.kids {
		pub := k.keys[kid].Public().(ed25519.PublicKey)
		out.Keys = append(out.Keys, JWK{Kty: "OKP", Crv: "Ed25519", Kid: kid, Use: "sig", Alg: "EdDSA", X: b64url(pub)})
	}
	return out
}

// ServeHTTP serves the JWKS as JSON with "Access-Control-Allow-Origin: *",
// so a verifier in a browser can fetch it too. It is mounted at
// GET /.well-known/pact-keys.json; other methods get 405.
func (k *Keyring) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Access-Control-Allow-Origin", "*")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(k.jwks)
	}
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// b64urlDecode reads base64url with or without padding.
func b64urlDecode(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// ActiveSeed returns the active key's id and Ed25519 seed, for the
// credential plugins that sign exported credentials with the board's key
// (they are pinned by SHA-256 for that reason).
func (k *Keyring) ActiveSeed() (kid string, seed []byte) {
	return k.kids[0], k.keys[k.kids[0]].Seed()
}

// Seed returns the Ed25519 seed of key kid, for core/seal, which derives
// its sealing keys from the keyring so that rotating the board's keys
// rotates them too.
func (k *Keyring) Seed(kid string) ([]byte, bool) {
	key, ok := k.keys[kid]
	if !ok {
		return nil, false
	}
	return key.Seed(), true
}
