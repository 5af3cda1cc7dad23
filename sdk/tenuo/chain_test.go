package tenuo

import (
	"crypto/ed25519"
	"strings"
	"testing"
	"time"
)

// sectionStack is the payload/signature pairs under a heading, in order,
// as a stack (root first).
func sectionStack(t *testing.T, bs []block, heading string) []*Signed {
	t.Helper()
	var out []*Signed
	for _, p := range signedPairs(t, bs) {
		if !strings.HasPrefix(p.heading, heading) {
			continue
		}
		pl, err := DecodePayload(p.payload)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &Signed{Raw: p.payload, Payload: pl, Signature: p.sig})
	}
	if len(out) == 0 {
		t.Fatalf("no warrants under %q", heading)
	}
	return out
}

// The invalid chains of the vectors are refused, each for its own reason.
func TestGoldenInvalidChainsRejected(t *testing.T) {
	bs := readBlocks(t)
	cp := []ed25519.PublicKey{pubOf(0x01)}
	cases := []struct {
		name  string
		stack []*Signed
		want  string
	}{
		{"A.4 I1", append(a3(t, bs)[:1:1], sectionStack(t, bs, "A.4")...), "I1"},
		{"A.10 I2", sectionStack(t, bs, "A.10"), "I2"},
		{"A.11 I4", sectionStack(t, bs, "A.11"), "I4"},
		{"A.12 I5", sectionStack(t, bs, "A.12"), "I5"},
		{"A.13 I3", sectionStack(t, bs, "A.13"), "I3"},
		{"A.14 forged", sectionStack(t, bs, "A.14")[:1], "bad signature"},
		{"A.15 bounds", sectionStack(t, bs, "A.15"), "constraint bounds"},
		{"A.17 clearance", sectionStack(t, bs, "A.17"), "clearance"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := VerifyStack(c.stack, VerifyOptions{TrustedRoots: cp, Now: vectorNow})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
	// A.14's correctly signed twin, A.22's chain and A.23's chain verify:
	// the refusals above are not a verifier that refuses everything.
	for _, h := range []string{"A.22", "A.3 "} {
		if h == "A.3 " {
			if _, err := VerifyStack(a3(t, bs), VerifyOptions{TrustedRoots: cp, Now: vectorNow}); err != nil {
				t.Errorf("A.3: %v", err)
			}
			continue
		}
		if _, err := VerifyStack(sectionStack(t, bs, h), VerifyOptions{TrustedRoots: cp, Now: vectorNow}); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	if _, err := VerifyStack(sectionStack(t, bs, "A.14")[1:], VerifyOptions{TrustedRoots: cp, Now: vectorNow}); err != nil {
		t.Errorf("A.14 valid: %v", err)
	}
}

// Revoking any link (A.22), an untrusted root, or an expired chain (A.5)
// fails the whole stack.
func TestVerifyRevokedUntrustedExpired(t *testing.T) {
	bs := readBlocks(t)
	cp := []ed25519.PublicKey{pubOf(0x01)}
	chain := sectionStack(t, bs, "A.22")
	for _, s := range chain {
		id := s.Payload.IDString()
		_, err := VerifyStack(chain, VerifyOptions{TrustedRoots: cp, Now: vectorNow, Revoked: func(x string) bool { return x == id }})
		if err == nil || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("revoking %s: %v", id, err)
		}
	}
	if _, err := VerifyStack(chain, VerifyOptions{TrustedRoots: []ed25519.PublicKey{pubOf(0xff)}, Now: vectorNow}); err == nil {
		t.Error("untrusted root accepted")
	}
	late := vectorNow.Add(2 * time.Hour)
	if _, err := VerifyStack(chain, VerifyOptions{TrustedRoots: cp, Now: late}); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired chain: %v", err)
	}
	a5 := sectionStack(t, bs, "A.5")
	if _, err := VerifyStack(a5, VerifyOptions{TrustedRoots: cp, Now: vectorNow}); err == nil {
		t.Error("A.5 expired warrant accepted")
	}
}

// Flipping any bit-pattern of any byte of A.8's stack makes it fail to
// decode or to verify: nothing in a stack is unprotected.
func TestStackByteFlipsFail(t *testing.T) {
	bs := readBlocks(t)
	b, err := EncodeStack(a3(t, bs))
	if err != nil {
		t.Fatal(err)
	}
	assertFlipsFail(t, b, []ed25519.PublicKey{pubOf(0x01)}, vectorNow)
}

func assertFlipsFail(t *testing.T, b []byte, roots []ed25519.PublicKey, now time.Time) {
	t.Helper()
	o := VerifyOptions{TrustedRoots: roots, Now: now}
	if st, err := DecodeStack(b); err != nil {
		t.Fatalf("unflipped: %v", err)
	} else if _, err := VerifyStack(st, o); err != nil {
		t.Fatalf("unflipped: %v", err)
	}
	for i := range b {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			c := append([]byte(nil), b...)
			c[i] ^= mask
			st, err := DecodeStack(c)
			if err == nil {
				_, err = VerifyStack(st, o)
			}
			if err == nil {
				t.Fatalf("byte %d ^ %#x still verifies", i, mask)
			}
		}
	}
}
