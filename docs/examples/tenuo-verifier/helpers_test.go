package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/tenuo"
)

const (
	boardSeed = 0x01
	agentSeed = 0x02
	otherSeed = 0x03
)

func seed(b byte) []byte { return bytes.Repeat([]byte{b}, ed25519.SeedSize) }

func pub(b byte) ed25519.PublicKey {
	return ed25519.NewKeyFromSeed(seed(b)).Public().(ed25519.PublicKey)
}

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// fakeBoard serves a JWKS and a Tenuo SRL signed, on each GET, by
// srlSeed at the fake clock's time, as the real board does.
type fakeBoard struct {
	mu      sync.Mutex
	clock   *clock
	srlSeed byte
	revoked []string
	version uint64
	down    bool
	skew    time.Duration // how far ahead of the clock the board signs its list
}

func (b *fakeBoard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/pact-keys.json":
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "OKP", "crv": "Ed25519",
			"kid": "k1", "x": base64.RawURLEncoding.EncodeToString(pub(boardSeed))}}})
	case "/.well-known/pact-revocations/tenuo":
		if b.down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		body, err := tenuo.SignSRL(&tenuo.SRL{RevokedIDs: b.revoked, Version: b.version, IssuedAt: b.clock.now().Add(b.skew)}, seed(b.srlSeed))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("X-Pact-Revocations-Version", fmt.Sprint(b.version))
		_, _ = w.Write(body)
	default:
		http.NotFound(w, r)
	}
}

func (b *fakeBoard) set(f func(*fakeBoard)) { b.mu.Lock(); defer b.mu.Unlock(); f(b) }

// env is a verifier wired to a fake board and a fake clock.
type env struct {
	clock *clock
	board *fakeBoard
	v     *Verifier
	srv   *httptest.Server // the verifier's own HTTP server
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := &clock{t: time.Now().UTC().Truncate(time.Second)}
	b := &fakeBoard{clock: c, srlSeed: boardSeed, version: 1}
	bs := httptest.NewServer(b)
	t.Cleanup(bs.Close)
	v := newVerifier(bs.URL, bs.Client(), c.now)
	if err := v.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	vs := httptest.NewServer(v)
	t.Cleanup(vs.Close)
	return &env{clock: c, board: b, v: v, srv: vs}
}

// stack mints a board-held root for issuer (as the board's export does)
// and a leaf held by the agent for tool report with project Exact("acme")
// and an "amount" ceiling of 100; it returns the stack and the leaf.
func stack(t *testing.T, issuer byte, now time.Time) ([]*tenuo.Signed, *tenuo.Signed) {
	t.Helper()
	tools := map[string]tenuo.ConstraintSet{"report": {Constraints: map[string]tenuo.Constraint{
		"project": tenuo.Exact("acme"), "task_id": tenuo.Wildcard(), "amount": tenuo.AtMost(100)}}}
	exp := uint64(now.Add(time.Hour).Unix())
	root, err := tenuo.Sign(&tenuo.Payload{ID: [16]byte{1}, Type: tenuo.Execution, Tools: tools, Holder: pub(issuer),
		Issuer: pub(issuer), IssuedAt: uint64(now.Unix()), ExpiresAt: exp, MaxDepth: 5}, seed(issuer))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := tenuo.Sign(&tenuo.Payload{ID: [16]byte{2}, Type: tenuo.Execution, Tools: tools, Holder: pub(agentSeed),
		Issuer: pub(issuer), IssuedAt: uint64(now.Unix()), ExpiresAt: exp, MaxDepth: 5, Depth: 1,
		ParentHash: root.Hash()}, seed(issuer))
	if err != nil {
		t.Fatal(err)
	}
	return []*tenuo.Signed{root, leaf}, leaf
}

// signedCall is a call the agent signed at now with the given stack.
func signedCall(t *testing.T, st []*tenuo.Signed, tool string, args map[string]any, now time.Time) callRequest {
	t.Helper()
	b, err := tenuo.EncodeStack(st)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := tenuo.SignPoP(seed(agentSeed), st[len(st)-1].Payload.ID, tool, args, now)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return callRequest{Tool: tool, Args: raw, WarrantStack: tenuo.Text(b),
		Signature: base64.RawURLEncoding.EncodeToString(sig), Timestamp: now.Unix()}
}

// post sends the call over HTTP and returns the status and error text.
func (e *env) post(t *testing.T, req callRequest) (int, string) {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(e.srv.URL+"/call", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Error string `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Error
}

func goodArgs() map[string]any {
	return map[string]any{"project": "acme", "task_id": "t-1", "amount": 40}
}
