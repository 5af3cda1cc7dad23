package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/tenuo"
)

// A call with a stack the board signed, within the leaf's grant and signed
// by the holder, is accepted and runs the tool.
func TestValidCallPasses(t *testing.T) {
	e := newEnv(t)
	st, _ := stack(t, boardSeed, e.clock.now())
	if code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now())); code != http.StatusOK {
		t.Fatalf("valid call: %d %s", code, msg)
	}
}

// The same signed call is accepted once; a second attempt is a replay.
func TestReplayRefused(t *testing.T) {
	e := newEnv(t)
	st, _ := stack(t, boardSeed, e.clock.now())
	call := signedCall(t, st, "report", goodArgs(), e.clock.now())
	if code, msg := e.post(t, call); code != http.StatusOK {
		t.Fatalf("first call: %d %s", code, msg)
	}
	e.clock.advance(10 * time.Second)
	if code, msg := e.post(t, call); code != http.StatusConflict || !strings.Contains(msg, "replay") {
		t.Fatalf("replay: %d %s", code, msg)
	}
	// A refused call is not remembered: a fresh signature still works.
	e.clock.advance(30 * time.Second)
	if code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now())); code != http.StatusOK {
		t.Fatalf("new signature: %d %s", code, msg)
	}
}

// Revoking any warrant of the stack, root or leaf, refuses the call once
// the verifier has the new list.
func TestRevokedWarrantRefused(t *testing.T) {
	for _, which := range []int{0, 1} {
		e := newEnv(t)
		st, _ := stack(t, boardSeed, e.clock.now())
		id := st[which].Payload.IDString()
		e.board.set(func(b *fakeBoard) { b.revoked, b.version = []string{id}, 2 })
		if err := e.v.refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now()))
		if code != http.StatusForbidden || !strings.Contains(msg, "revoked") {
			t.Errorf("link %d revoked: %d %s", which, code, msg)
		}
	}
}

// A well-formed stack whose root is signed by a key the board does not
// publish is refused.
func TestUntrustedKeyRefused(t *testing.T) {
	e := newEnv(t)
	st, _ := stack(t, otherSeed, e.clock.now())
	code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now()))
	if code != http.StatusForbidden || !strings.Contains(msg, "not trusted") {
		t.Fatalf("untrusted root: %d %s", code, msg)
	}
}

// Flipping any bit of the stack, or a byte of the PoP signature, refuses
// the call; the unflipped call is accepted afterwards (nothing flipped was
// recorded as seen).
func TestFlippedByteRefused(t *testing.T) {
	e := newEnv(t)
	st, _ := stack(t, boardSeed, e.clock.now())
	good := signedCall(t, st, "report", goodArgs(), e.clock.now())
	raw, err := tenuo.FromText(good.WarrantStack)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		c := append([]byte(nil), raw...)
		c[i] ^= 0x01
		bad := good
		bad.WarrantStack = tenuo.Text(c)
		if _, err := e.v.call(bad); err == nil {
			t.Fatalf("stack byte %d flipped was accepted", i)
		}
	}
	sig := []byte(good.Signature)
	sig[3] ^= 0x01 // 'A'…'z' stay in the alphabet and change a decoded byte
	bad := good
	bad.Signature = string(sig)
	if code, msg := e.post(t, bad); code == http.StatusOK {
		t.Fatalf("flipped signature accepted: %s", msg)
	}
	if code, msg := e.post(t, good); code != http.StatusOK {
		t.Fatalf("unflipped call after flips: %d %s", code, msg)
	}
}

// The leaf's grant is enforced: another tool, another project, an amount
// over the ceiling, a missing constrained argument or an unknown one is
// refused; the PoP binds the arguments, so changed args are refused too.
func TestGrantEnforced(t *testing.T) {
	e := newEnv(t)
	now := e.clock.now()
	st, _ := stack(t, boardSeed, now)
	with := func(k string, v any) map[string]any {
		a := goodArgs()
		if v == nil {
			delete(a, k)
		} else {
			a[k] = v
		}
		return a
	}
	cases := map[string]callRequest{
		"other tool":    signedCall(t, st, "deploy", goodArgs(), now),
		"other project": signedCall(t, st, "report", with("project", "globex"), now),
		"over ceiling":  signedCall(t, st, "report", with("amount", 100.5), now),
		"no amount":     signedCall(t, st, "report", with("amount", nil), now),
		"unknown arg":   signedCall(t, st, "report", with("extra", "x"), now),
	}
	tampered := signedCall(t, st, "report", goodArgs(), now)
	tampered.Args = json.RawMessage(`{"project":"acme","task_id":"t-1","amount":99}`)
	cases["args changed after signing"] = tampered
	for name, c := range cases {
		if code, msg := e.post(t, c); code != http.StatusForbidden {
			t.Errorf("%s: %d %s", name, code, msg)
		}
	}
	if code, msg := e.post(t, signedCall(t, st, "report", with("amount", 100), now)); code != http.StatusOK {
		t.Errorf("amount at the ceiling: %d %s", code, msg)
	}
}

// A timestamp far from the verifier's clock, or a PoP signed too long
// ago, is refused.
func TestStaleProofRefused(t *testing.T) {
	e := newEnv(t)
	st, _ := stack(t, boardSeed, e.clock.now())
	old := signedCall(t, st, "report", goodArgs(), e.clock.now().Add(-5*time.Minute))
	if code, _ := e.post(t, old); code != http.StatusForbidden {
		t.Errorf("old timestamp: %d", code)
	}
	lying := old
	lying.Timestamp = e.clock.now().Unix()
	if code, msg := e.post(t, lying); code != http.StatusForbidden || !strings.Contains(msg, "possession") {
		t.Errorf("old PoP with a fresh timestamp: %d %s", code, msg)
	}
}
