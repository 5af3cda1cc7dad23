package tenuo

import (
	"bytes"
	"testing"
	"time"
)

// A signed list round-trips, is refused under another key or with any
// byte flipped, and its issued_at has whole seconds as Tenuo's chrono
// writes them.
func TestSRLSignParse(t *testing.T) {
	s := &SRL{RevokedIDs: []string{"tnu_wrt_019471f8000070008000000000002201"}, Version: 7,
		IssuedAt: time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)}
	b, err := SignSRL(s, seedOf(0x01))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("2026-11-29T21:00:00Z")) {
		t.Error("issued_at not RFC 3339 whole seconds")
	}
	if !bytes.HasPrefix(b, []byte("\xa2gpayload\xa4krevoked_ids")) {
		t.Errorf("field order: %x", b[:24])
	}
	got, err := ParseSRL(b, pubOf(0x01))
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 7 || len(got.RevokedIDs) != 1 || got.RevokedIDs[0] != s.RevokedIDs[0] {
		t.Errorf("parsed %+v", got)
	}
	if _, err := ParseSRL(b, pubOf(0x02)); err == nil {
		t.Error("accepted under another key")
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x01
		if _, err := ParseSRL(c, pubOf(0x01)); err == nil {
			t.Fatalf("byte %d flipped still verifies", i)
		}
	}
}

// A.22.b is not the real SRL format (docs/specs/credential-formats.md §2.7), but its
// signature shows the double prefix: it verifies over
// "tenuo-warrant-v1" ‖ "tenuo-srl-v1" ‖ payload and not without the outer
// context.
func TestGoldenSRLSigningContext(t *testing.T) {
	bs := readBlocks(t)
	payload := find(bs, "SrlPayload", "**SrlPayload CBOR")[0].hex(t)
	sig := find(bs, "SrlPayload", "**Control Plane Signature")[0].hex(t)
	if !verify(pubOf(0x01), sig, []byte(ctxOuter), []byte(ctxSRL), payload) {
		t.Error("double-prefixed preimage does not verify")
	}
	if verify(pubOf(0x01), sig, []byte(ctxSRL), payload) {
		t.Error("spec's single-prefixed preimage verifies; the reference says it must not")
	}
}
