package tenuo

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// Signing contexts. Tenuo's SigningKey::sign prepends ctxOuter to every
// message it signs, so each preimage starts with it, including the PoP and
// SRL ones the spec documents without it (docs/specs/credential-formats.md §2.4).
const (
	ctxOuter = "tenuo-warrant-v1"
	ctxPoP   = "tenuo-pop-v1"
	ctxSRL   = "tenuo-srl-v1"
)

// Size limits of Tenuo's decoder (docs/specs/credential-formats.md §2.3).
const (
	maxWarrantBytes = 64 << 10
	maxStackBytes   = 256 << 10
	maxStackLen     = 64
)

// Signed is a SignedWarrant: the exact payload bytes, their parsed form
// and the issuer's signature over them.
type Signed struct {
	Raw       []byte
	Payload   *Payload
	Signature []byte
}

func sign(seed []byte, parts ...[]byte) ([]byte, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("tenuo: signing seed is not 32 bytes")
	}
	return ed25519.Sign(ed25519.NewKeyFromSeed(seed), concat(parts...)), nil
}

func verify(pub ed25519.PublicKey, sig []byte, parts ...[]byte) bool {
	return len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, concat(parts...), sig)
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// warrantPreimage is what the issuer signs: the outer context, the
// envelope version byte and the payload bytes.
func warrantPreimage(payload []byte) [][]byte {
	return [][]byte{[]byte(ctxOuter), {1}, payload}
}

// Sign encodes p and signs it with the issuer's seed. The seed must be the
// one of p.Issuer; a mismatch is refused rather than producing a warrant
// no verifier would accept.
func Sign(p *Payload, issuerSeed []byte) (*Signed, error) {
	if len(issuerSeed) != ed25519.SeedSize {
		return nil, errors.New("tenuo: signing seed is not 32 bytes")
	}
	pub := ed25519.NewKeyFromSeed(issuerSeed).Public().(ed25519.PublicKey)
	if !pub.Equal(p.Issuer) {
		return nil, errors.New("tenuo: signing seed does not match the issuer")
	}
	raw, err := p.Encode()
	if err != nil {
		return nil, err
	}
	sig, err := sign(issuerSeed, warrantPreimage(raw)...)
	if err != nil {
		return nil, err
	}
	return &Signed{Raw: raw, Payload: p, Signature: sig}, nil
}

// Hash is SHA-256 of the payload bytes: a child's parent_hash.
func (s *Signed) Hash() []byte {
	h := sha256.Sum256(s.Raw)
	return h[:]
}

// VerifySignature checks the issuer's signature over the raw payload.
func (s *Signed) VerifySignature() bool {
	return verify(s.Payload.Issuer, s.Signature, warrantPreimage(s.Raw)...)
}

func (s *Signed) enc() []any {
	return []any{uint64(1), s.Raw, []any{uint64(algEd25519), s.Signature}}
}

// Encode writes the SignedWarrant envelope.
func (s *Signed) Encode() ([]byte, error) { return encMode().Marshal(s.enc()) }

// EncodeStack writes a WarrantStack, root first.
func EncodeStack(stack []*Signed) ([]byte, error) {
	items := make([]any, len(stack))
	for i, s := range stack {
		items[i] = s.enc()
	}
	return encMode().Marshal(items)
}

// DecodeSigned reads one SignedWarrant envelope. It does not verify the
// signature; VerifyStack does.
func DecodeSigned(b []byte) (*Signed, error) {
	if len(b) > maxWarrantBytes {
		return nil, errors.New("tenuo: warrant too large")
	}
	var env []cbor.RawMessage
	if err := decMode().Unmarshal(b, &env); err != nil || len(env) != 3 {
		return nil, errors.New("tenuo: not a SignedWarrant envelope")
	}
	var version uint64
	if err := decMode().Unmarshal(env[0], &version); err != nil || version != 1 {
		return nil, errors.New("tenuo: unknown envelope version")
	}
	s := &Signed{}
	if err := decMode().Unmarshal(env[1], &s.Raw); err != nil {
		return nil, fmt.Errorf("tenuo: envelope payload: %w", err)
	}
	alg, sig, err := decodeAlgBytes(env[2])
	if err != nil || alg != algEd25519 || len(sig) != ed25519.SignatureSize {
		return nil, errors.New("tenuo: not an Ed25519 signature")
	}
	s.Signature = sig
	if s.Payload, err = DecodePayload(s.Raw); err != nil {
		return nil, err
	}
	return s, nil
}

// DecodeStack reads a WarrantStack, or a single SignedWarrant as a
// one-link stack (Tenuo tells them apart by the type of element 0).
func DecodeStack(b []byte) ([]*Signed, error) {
	if len(b) > maxStackBytes {
		return nil, errors.New("tenuo: stack too large")
	}
	var items []cbor.RawMessage
	if err := decMode().Unmarshal(b, &items); err != nil || len(items) == 0 {
		return nil, errors.New("tenuo: not a warrant stack")
	}
	if items[0][0]>>5 != 4 { // element 0 is not an array: a single warrant
		s, err := DecodeSigned(b)
		if err != nil {
			return nil, err
		}
		return []*Signed{s}, nil
	}
	if len(items) > maxStackLen {
		return nil, errors.New("tenuo: stack has more than 64 links")
	}
	out := make([]*Signed, len(items))
	for i, it := range items {
		s, err := DecodeSigned(it)
		if err != nil {
			return nil, fmt.Errorf("link %d: %w", i, err)
		}
		out[i] = s
	}
	return out, nil
}

// Text is the transport form: base64url without padding.
func Text(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// FromText reads the transport form. Like Tenuo's decode_base64 it refuses
// padding and the standard alphabet, so one credential has one spelling.
func FromText(s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, errors.New("tenuo: not base64url without padding")
	}
	return b, nil
}
