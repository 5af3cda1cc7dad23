package tenuo

import (
	"crypto/ed25519"
	"strings"
	"testing"
)

// Self-issuance is refused only for Issuer → Execution (protocol-spec-v1
// §441, docs/specs/credential-formats.md §2.5). A.16's parent_hash names A.3 L0, an
// execution warrant, so under the coded rule its chain verifies; the
// board's own exports rely on this (every ledger link is board → board).
// The Issuer → Execution case is built from A.2's issuer warrant.
func TestSelfIssuanceOnlyFromIssuerWarrants(t *testing.T) {
	bs := readBlocks(t)
	roots := []ed25519.PublicKey{pubOf(0x01)}
	a16 := append(a3(t, bs)[:1:1], sectionStack(t, bs, "A.16")...)
	if _, err := VerifyStack(a16, VerifyOptions{TrustedRoots: roots, Now: vectorNow}); err != nil {
		t.Errorf("A.16 over A.3 L0 (exec → exec): %v", err)
	}
	issuer := sectionStack(t, bs, "A.2 ")[0]
	for _, holder := range []ed25519.PublicKey{issuer.Payload.Holder, issuer.Payload.Issuer} {
		child := &Payload{ID: [16]byte{0xe1}, Type: Execution,
			Tools:  map[string]ConstraintSet{issuer.Payload.IssuableTools[0]: {Constraints: map[string]Constraint{}}},
			Holder: holder, Issuer: issuer.Payload.Holder, IssuedAt: issuer.Payload.IssuedAt,
			ExpiresAt: issuer.Payload.ExpiresAt, MaxDepth: issuer.Payload.MaxDepth, ParentHash: issuer.Hash(), Depth: 1}
		s, err := Sign(child, seeds()[string(issuer.Payload.Holder)])
		if err != nil {
			t.Fatal(err)
		}
		_, err = VerifyStack([]*Signed{issuer, s}, VerifyOptions{TrustedRoots: roots, Now: vectorNow})
		if err == nil || !strings.Contains(err.Error(), "self-issuance") {
			t.Errorf("issuer → exec to %x: %v", holder[:4], err)
		}
	}
}
