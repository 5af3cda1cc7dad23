package tenuo

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// Every warrant payload in test-vectors.md decodes and re-encodes to the
// same bytes: map order, shortest floats, int-array hashes and extension
// values, struct field order of every constraint type this package reads.
func TestGoldenPayloadsReencodeByteExact(t *testing.T) {
	n := 0
	for _, p := range signedPairs(t, readBlocks(t)) {
		got, err := DecodePayload(p.payload)
		if err != nil {
			t.Errorf("%s: decode: %v", p.heading, err)
			continue
		}
		b, err := got.Encode()
		if err != nil {
			t.Errorf("%s: encode: %v", p.heading, err)
			continue
		}
		if !bytes.Equal(b, p.payload) {
			t.Errorf("%s: re-encoded payload differs\n got %x\nwant %x", p.heading, b, p.payload)
		}
		n++
	}
	t.Logf("%d vector payloads re-encoded byte for byte", n)
}

// Every warrant signature in the vectors is reproduced by signing the
// payload with the generator's seed for its issuer, except A.14's forgery,
// which must not verify.
func TestGoldenWarrantSignatures(t *testing.T) {
	keys := seeds()
	for _, p := range signedPairs(t, readBlocks(t)) {
		pl, err := DecodePayload(p.payload)
		if err != nil {
			t.Fatalf("%s: %v", p.heading, err)
		}
		s := &Signed{Raw: p.payload, Payload: pl, Signature: p.sig}
		forged := strings.HasPrefix(p.heading, "A.14") && bytes.Equal(p.sig, forgedA14(t))
		if s.VerifySignature() == forged {
			t.Errorf("%s: signature verifies=%v, forged=%v", p.heading, !forged, forged)
		}
		if forged {
			continue
		}
		seed := keys[string(pl.Issuer)]
		if seed == nil {
			t.Fatalf("%s: issuer %x is not a generator key", p.heading, pl.Issuer)
		}
		again, err := Sign(pl, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Raw, p.payload) || !bytes.Equal(again.Signature, p.sig) {
			t.Errorf("%s: re-signing differs\n got %x\nwant %x", p.heading, again.Signature, p.sig)
		}
	}
}

func forgedA14(t *testing.T) []byte {
	bs := find(readBlocks(t), "A.14", "**Signature")
	if len(bs) != 2 {
		t.Fatalf("A.14: want 2 signatures, got %d", len(bs))
	}
	return bs[0].hex(t)
}

// A.1 built from its table alone (not from its bytes) gives the printed
// payload, signature, envelope and base64url text.
func TestGoldenA1FromFields(t *testing.T) {
	bs := readBlocks(t)
	id, _ := hex.DecodeString("019471f8000070008000000000000001")
	p := &Payload{
		Type:      Execution,
		Tools:     map[string]ConstraintSet{"read_file": {Constraints: map[string]Constraint{"path": Wildcard()}}},
		Holder:    pubOf(0x02),
		Issuer:    pubOf(0x01),
		IssuedAt:  1704067200,
		ExpiresAt: 1704070800,
		MaxDepth:  3,
	}
	copy(p.ID[:], id)
	s, err := Sign(p, seedOf(0x01))
	if err != nil {
		t.Fatal(err)
	}
	want := func(label string) []byte { return find(bs, "A.1 ", label)[0].hex(t) }
	if !bytes.Equal(s.Raw, want("**Payload CBOR")) {
		t.Errorf("payload\n got %x\nwant %x", s.Raw, want("**Payload CBOR"))
	}
	if !bytes.Equal(s.Signature, want("**Signature")) {
		t.Errorf("signature differs")
	}
	env, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(env, want("**Full Envelope CBOR")) {
		t.Errorf("envelope\n got %x\nwant %x", env, want("**Full Envelope CBOR"))
	}
	text := strings.Join(strings.Fields(find(bs, "A.1 ", "**Base64")[0].text), "")
	if Text(env) != text {
		t.Errorf("base64url\n got %s\nwant %s", Text(env), text)
	}
	if p.IDString() != "tnu_wrt_019471f8000070008000000000000001" {
		t.Errorf("id string %s", p.IDString())
	}
}

// a3 is A.3's three-level chain, signed anew from its decoded payloads.
func a3(t *testing.T, bs []block) []*Signed {
	t.Helper()
	var out []*Signed
	for _, lvl := range []string{"Level 0", "Level 1", "Level 2"} {
		raw := find(bs, lvl, "**Payload CBOR")[0].hex(t)
		sig := find(bs, lvl, "**Signature")[0].hex(t)
		p, err := DecodePayload(raw)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &Signed{Raw: raw, Payload: p, Signature: sig})
	}
	return out
}

// vectorNow is inside the vectors' one-hour validity window.
var vectorNow = time.Unix(1704067200+1800, 0)

// A.8 is A.3's chain as a stack: encoding it gives the printed bytes and
// text, and the decoded stack verifies link by link from the control
// plane key.
func TestGoldenA8Stack(t *testing.T) {
	bs := readBlocks(t)
	stack := a3(t, bs)
	b, err := EncodeStack(stack)
	if err != nil {
		t.Fatal(err)
	}
	want := find(bs, "A.8", "**WarrantStack CBOR")[0].hex(t)
	if !bytes.Equal(b, want) {
		t.Fatalf("stack\n got %x\nwant %x", b, want)
	}
	text := strings.Join(strings.Fields(find(bs, "A.8", "**Base64")[0].text), "")
	if Text(b) != text {
		t.Errorf("base64url differs")
	}
	raw, err := FromText(text)
	if err != nil || !bytes.Equal(raw, want) {
		t.Fatalf("FromText: %v", err)
	}
	got, err := DecodeStack(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stack[1].Payload.ParentHash, stack[0].Hash()) {
		t.Errorf("A.3 L1 parent_hash is not SHA-256 of L0")
	}
	leaf, err := VerifyStack(got, VerifyOptions{TrustedRoots: []ed25519.PublicKey{pubOf(0x01)}, Now: vectorNow})
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Payload.IDString() != "tnu_wrt_019471f8000070008000000000000012" {
		t.Errorf("leaf %s", leaf.Payload.IDString())
	}
}
