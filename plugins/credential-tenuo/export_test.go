package main

import (
	"context"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/tenuo"
)

// The stack holds one board-held warrant per ledger link and a leaf held
// by the agent's key; it verifies link by link trusting only the board key.
func TestExportStackVerifiesLinkByLink(t *testing.T) {
	e, st := export(t, chain())
	if e.Format != "tenuo" || e.Field != "warrant_stack" || len(st) != 3 {
		t.Fatalf("format %q field %q links %d", e.Format, e.Field, len(st))
	}
	leaf, err := tenuo.VerifyStack(st, tenuo.VerifyOptions{TrustedRoots: []ed25519.PublicKey{pub(boardSeed)}, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range st[:2] {
		if !s.Payload.Holder.Equal(pub(boardSeed)) || !s.Payload.Issuer.Equal(pub(boardSeed)) {
			t.Errorf("link %d is not board-held and board-signed", i)
		}
	}
	if !leaf.Payload.Holder.Equal(pub(agentSeed)) || e.ExternalID != leaf.Payload.IDString() {
		t.Error("leaf is not the agent's, or external id is not the leaf's")
	}
	if got := e.LinkIDs["m1"]; len(got) != 1 || got[0] != st[0].Payload.IDString() {
		t.Errorf("m1 ids %v", got)
	}
	if got := e.LinkIDs["m2"]; len(got) != 2 || got[0] != st[1].Payload.IDString() || got[1] != e.ExternalID {
		t.Errorf("m2 ids %v", got)
	}
	// TTLs: each warrant expires with its link; the leaf at most TTL after now.
	if st[0].Payload.ExpiresAt != uint64(testNow.Add(72*time.Hour).Unix()) ||
		st[1].Payload.ExpiresAt != uint64(testNow.Add(48*time.Hour).Unix()) ||
		leaf.Payload.ExpiresAt != uint64(testNow.Add(24*time.Hour).Unix()) || !e.ExpiresAt.Equal(testNow.Add(24*time.Hour)) {
		t.Errorf("expiries %d %d %d", st[0].Payload.ExpiresAt, st[1].Payload.ExpiresAt, leaf.Payload.ExpiresAt)
	}
	if leaf.Payload.MaxDepth != leaf.Payload.Depth {
		t.Error("leaf of a link with no delegations left is not terminal")
	}
}

// Scope and limit mapping: action@project:P → tool action with project
// Exact(P) or OneOf(sorted), task_id Wildcard, limits as inclusive
// ceilings tightened down the chain.
func TestExportMapsScopesAndLimits(t *testing.T) {
	_, st := export(t, chain())
	root := st[0].Payload.Tools
	if len(root) != 2 {
		t.Fatalf("root tools %v", root)
	}
	cw := root["code.write"].Constraints
	if p := cw["project"]; p.Type != tenuo.TypeOneOf || len(p.Value.([]any)) != 2 || p.Value.([]any)[0] != "alpha" {
		t.Errorf("project %+v", p)
	}
	if cw["task_id"].Type != tenuo.TypeWildcard {
		t.Error("task_id not free")
	}
	if r := cw["cost_usd"].Value.(tenuo.Range); *r.Max != 50 || !r.MaxInclusive || r.Min != nil {
		t.Errorf("cost_usd %+v", r)
	}
	leaf := st[2].Payload.Tools
	lc := leaf["code.write"].Constraints
	if len(leaf) != 1 || lc["project"].Type != tenuo.TypeExact || lc["project"].Value != "alpha" {
		t.Errorf("leaf tools %+v", leaf)
	}
	if *lc["cost_usd"].Value.(tenuo.Range).Max != 12.5 || *lc["files"].Value.(tenuo.Range).Max != 3 {
		t.Error("leaf limits not tightened")
	}
}

// Flipping any byte of an exported stack makes it fail.
func TestExportByteFlipsFail(t *testing.T) {
	e, _ := export(t, chain())
	raw, _ := tenuo.FromText(e.Credential)
	roots := []ed25519.PublicKey{pub(boardSeed)}
	for i := range raw {
		for _, m := range []byte{0x01, 0x80} {
			c := append([]byte(nil), raw...)
			c[i] ^= m
			st, err := tenuo.DecodeStack(c)
			if err == nil {
				_, err = tenuo.VerifyStack(st, tenuo.VerifyOptions{TrustedRoots: roots, Now: testNow})
			}
			if err == nil {
				t.Fatalf("byte %d ^ %#x still verifies", i, m)
			}
		}
	}
}

// The agent proves possession with its own key; nobody else can.
func TestExportProofOfPossession(t *testing.T) {
	_, st := export(t, chain())
	leaf := st[len(st)-1].Payload
	args := map[string]any{"project": "alpha", "task_id": "t-1", "cost_usd": 2.5, "files": int64(1)}
	sig, err := tenuo.SignPoP(seed(agentSeed), leaf.ID, "code.write", args, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := tenuo.VerifyPoP(leaf, "code.write", args, sig, testNow.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	forged, _ := tenuo.SignPoP(seed(boardSeed), leaf.ID, "code.write", args, testNow)
	if tenuo.VerifyPoP(leaf, "code.write", args, forged, testNow) == nil {
		t.Fatal("the board's key proved possession of the agent's leaf")
	}
}

// Wildcard scopes are refused with the credential_note as the message,
// across the gRPC boundary.
func TestExportWildcardScopeIsNote(t *testing.T) {
	c := chain()
	c[0].Scope = append(c[0].Scope, "task.*@project:alpha")
	_, err := served(t).Export(context.Background(), exportReq(c))
	e, ok := errs.As(err)
	if !ok || e.Code != errs.InvalidRequest ||
		e.Message != "no tenuo credential: these scopes cannot be exported as Tenuo warrants: task.*@project:alpha" {
		t.Fatalf("got %v", err)
	}
	r := exportReq(chain())
	r.HolderKey = []byte{1, 2, 3}
	if _, err := served(t).Export(context.Background(), r); errs.CodeOf(err) != errs.InvalidRequest ||
		!strings.Contains(err.Error(), "no tenuo credential") {
		t.Fatalf("short key: %v", err)
	}
}

// The revocation list is a Tenuo SRL signed by the board key.
func TestRevocationListIsSignedSRL(t *testing.T) {
	ids := []string{"tnu_wrt_019471f8000070008000000000002201"}
	l, err := served(t).RevocationList(context.Background(), credentialRevocation(ids))
	if err != nil {
		t.Fatal(err)
	}
	if l.ContentType != "application/octet-stream" {
		t.Errorf("content type %q", l.ContentType)
	}
	s, err := tenuo.ParseSRL(l.Body, pub(boardSeed))
	if err != nil || s.Version != 4 || len(s.RevokedIDs) != 1 || s.RevokedIDs[0] != ids[0] {
		t.Fatalf("%+v %v", s, err)
	}
}

// A 200-day link's warrant is capped at 90 days, and the leaf at the TTL
// the board asks for (PACT_EXPORT_TTL_HOURS), here 2 hours
// (docs/specs/behavior.md §13, test_tenuo_export).
func TestExportCapsLongLinksAndHonoursTheTTL(t *testing.T) {
	c := chain()
	c[0].ExpiresAt = testNow.Add(200 * 24 * time.Hour)
	c[1].ExpiresAt = testNow.Add(150 * 24 * time.Hour)
	req := exportReq(c)
	req.TTL = 2 * time.Hour
	e, err := served(t).Export(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tenuo.FromText(e.Credential)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tenuo.DecodeStack(raw)
	if err != nil {
		t.Fatal(err)
	}
	capped := uint64(testNow.Add(90 * 24 * time.Hour).Unix())
	if st[0].Payload.ExpiresAt != capped || st[1].Payload.ExpiresAt != capped {
		t.Errorf("link warrants expire at %d and %d, want the 90-day cap %d", st[0].Payload.ExpiresAt, st[1].Payload.ExpiresAt, capped)
	}
	if leaf := st[2].Payload.ExpiresAt; leaf != uint64(testNow.Add(2*time.Hour).Unix()) || !e.ExpiresAt.Equal(testNow.Add(2*time.Hour)) {
		t.Errorf("leaf expires at %d (%s), want 2 hours after now", leaf, e.ExpiresAt)
	}
}
