package tenuo

import (
	"crypto/ed25519"
	"errors"
	"time"

	"github.com/fxamacker/cbor/v2"
)

// SRL is a signed revocation list as Tenuo's revocation.rs defines it
// (docs/specs/credential-formats.md §2.7), not as vector A.22.b shows it.
type SRL struct {
	RevokedIDs []string // "tnu_wrt_<hex>" form, the form Tenuo matches
	Version    uint64
	IssuedAt   time.Time
	Issuer     ed25519.PublicKey
	Signature  []byte
	// issuedText is issued_at as read, so a parsed list re-encodes to
	// exactly the bytes its signer signed.
	issuedText string
}

// payload is SrlPayload in serde field order. issued_at is chrono's
// RFC 3339 text; it is truncated to whole seconds so the text carries no
// fraction and the verifier's re-encoding matches byte for byte.
func (s *SRL) payload() omap {
	ids := s.RevokedIDs
	if ids == nil {
		ids = []string{}
	}
	at := s.issuedText
	if at == "" {
		at = s.IssuedAt.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
	}
	return omap{{"revoked_ids", ids}, {"version", s.Version}, {"issued_at", at},
		{"issuer", key(s.Issuer)}}
}

// SignSRL signs the list with the board's seed; the signature covers the
// re-encoded payload, as Tenuo's verifier re-encodes before checking.
func SignSRL(s *SRL, seed []byte) ([]byte, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("tenuo: signing seed is not 32 bytes")
	}
	s.Issuer = ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	s.IssuedAt = s.IssuedAt.UTC().Truncate(time.Second)
	pb, err := encMode().Marshal(s.payload())
	if err != nil {
		return nil, err
	}
	if s.Signature, err = sign(seed, []byte(ctxOuter), []byte(ctxSRL), pb); err != nil {
		return nil, err
	}
	return encMode().Marshal(omap{{"payload", s.payload()}, {"signature", []any{uint64(algEd25519), s.Signature}}})
}

// ParseSRL reads a signed list and checks it against the trusted key.
func ParseSRL(b []byte, trusted ed25519.PublicKey) (*SRL, error) {
	var doc map[string]cbor.RawMessage
	if err := decMode().Unmarshal(b, &doc); err != nil || len(doc) != 2 {
		return nil, errors.New("tenuo: not a signed revocation list")
	}
	var p struct {
		RevokedIDs []string        `cbor:"revoked_ids"`
		Version    uint64          `cbor:"version"`
		IssuedAt   string          `cbor:"issued_at"`
		Issuer     cbor.RawMessage `cbor:"issuer"`
	}
	if err := strictStruct(doc["payload"], &p, "revoked_ids", "version", "issued_at", "issuer"); err != nil {
		return nil, errors.New("tenuo: revocation list payload: " + err.Error())
	}
	s := &SRL{RevokedIDs: p.RevokedIDs, Version: p.Version, issuedText: p.IssuedAt}
	var err error
	if s.IssuedAt, err = time.Parse(time.RFC3339Nano, p.IssuedAt); err != nil {
		return nil, errors.New("tenuo: revocation list issued_at is not RFC 3339")
	}
	if s.Issuer, err = decodeKey(p.Issuer); err != nil {
		return nil, err
	}
	alg, sig, err := decodeAlgBytes(doc["signature"])
	if err != nil || alg != algEd25519 {
		return nil, errors.New("tenuo: revocation list signature is not Ed25519")
	}
	s.Signature = sig
	pb, err := encMode().Marshal(s.payload())
	if err != nil {
		return nil, err
	}
	if !s.Issuer.Equal(trusted) || !verify(trusted, sig, []byte(ctxOuter), []byte(ctxSRL), pb) {
		return nil, errors.New("tenuo: revocation list signature does not verify")
	}
	return s, nil
}
