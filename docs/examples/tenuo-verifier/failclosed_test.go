package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/tenuo"
)

// failsClosed asserts that a valid, never-used call is refused with 503.
func failsClosed(t *testing.T, e *env, why string) {
	t.Helper()
	st, _ := stack(t, boardSeed, e.clock.now())
	if code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now())); code != http.StatusServiceUnavailable {
		t.Fatalf("%s: got %d %s, want 503", why, code, msg)
	}
}

// With the revocation endpoint down, the verifier keeps its last list for
// at most 60 s and then refuses every call, until the board is back.
func TestRevocationEndpointDownRefusesAll(t *testing.T) {
	e := newEnv(t)
	e.board.set(func(b *fakeBoard) { b.down = true })
	e.clock.advance(30 * time.Second)
	if err := e.v.refresh(context.Background()); err == nil {
		t.Fatal("refresh succeeded with the endpoint down")
	}
	st, _ := stack(t, boardSeed, e.clock.now())
	if code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now())); code != http.StatusOK {
		t.Fatalf("within 60 s of the last list: %d %s", code, msg)
	}
	e.clock.advance(31 * time.Second)
	_ = e.v.refresh(context.Background())
	failsClosed(t, e, "endpoint down for 61 s")
	e.board.set(func(b *fakeBoard) { b.down = false })
	if err := e.v.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, _ = stack(t, boardSeed, e.clock.now())
	if code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now())); code != http.StatusOK {
		t.Fatalf("board back: %d %s", code, msg)
	}
}

// A list not refreshed for over 60 s (fake clock) refuses every call.
func TestStaleListRefusesAll(t *testing.T) {
	e := newEnv(t)
	e.clock.advance(61 * time.Second)
	failsClosed(t, e, "list 61 s old")
}

// A list signed in the future beyond the clock tolerance means a clock is
// wrong: every call is refused. Up to the tolerance, calls pass.
func TestAListSignedInTheFutureRefusesAll(t *testing.T) {
	e := newEnv(t)
	e.board.set(func(b *fakeBoard) { b.skew = tenuo.ClockTolerance })
	if err := e.v.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, _ := stack(t, boardSeed, e.clock.now())
	if code, msg := e.post(t, signedCall(t, st, "report", goodArgs(), e.clock.now())); code != http.StatusOK {
		t.Fatalf("a list signed exactly the tolerance ahead: got %d %s, want 200", code, msg)
	}
	e.board.set(func(b *fakeBoard) { b.skew = tenuo.ClockTolerance + time.Second })
	_ = e.v.refresh(context.Background())
	failsClosed(t, e, "list signed 31 s in the future")
}

// Before any list has been fetched nothing is accepted.
func TestNoListYetRefusesAll(t *testing.T) {
	e := newEnv(t)
	e.v.trust = nil
	failsClosed(t, e, "no list yet")
}

// A list signed by a key the board does not publish, or one whose version
// goes back, is not taken; the verifier then goes stale and refuses.
func TestUnverifiableListRefusesAll(t *testing.T) {
	e := newEnv(t)
	e.board.set(func(b *fakeBoard) { b.srlSeed = otherSeed })
	e.clock.advance(61 * time.Second)
	if err := e.v.refresh(context.Background()); err == nil {
		t.Fatal("list signed by an untrusted key was taken")
	}
	failsClosed(t, e, "untrusted list signer")

	e = newEnv(t)
	e.board.set(func(b *fakeBoard) { b.version = 5 })
	if err := e.v.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.board.set(func(b *fakeBoard) { b.version = 4 })
	e.clock.advance(61 * time.Second)
	if err := e.v.refresh(context.Background()); err == nil {
		t.Fatal("a rolled-back list version was taken")
	}
	failsClosed(t, e, "rolled-back list")
}

// The replay cache forgets a signature only after it can no longer verify.
func TestReplayCacheBounded(t *testing.T) {
	r := newReplayCache()
	now := time.Unix(1_800_000_000, 0)
	if !r.claim([]byte("a"), now) || r.claim([]byte("a"), now.Add(replayTTL-time.Second)) {
		t.Fatal("a signature was accepted twice within the window")
	}
	r.sweep(now.Add(replayTTL))
	if len(r.seen) != 0 {
		t.Fatalf("expired entries kept: %d", len(r.seen))
	}
}
