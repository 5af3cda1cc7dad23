package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/plugintest"
	"github.com/pactboard/pact/sdk/tenuo"
)

var testNow = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)

func seed(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func pub(b byte) ed25519.PublicKey {
	return ed25519.NewKeyFromSeed(seed(b)).Public().(ed25519.PublicKey)
}

// Keys of the tests: the board signs, the agent holds the leaf, the org is
// an outside trusted root.
const (
	boardSeed = 0x01
	agentSeed = 0x03
	orgSeed   = 0x05
)

// served is the plugin as the board holds it: over real gRPC.
func served(t *testing.T) credential.Credential {
	t.Helper()
	return plugintest.Credential(t, New())
}

// chain is a two-link ledger chain: a person's root to agent a1 with a
// limit, then a1's delegation to a2 with a tighter limit and a new one.
func chain() []credential.Link {
	return []credential.Link{
		{ID: "m1", IssuerKind: "human", Issuer: "h1", Holder: "a1",
			Scope:  []string{"code.write@project:alpha", "code.write@project:beta", "task.claim@project:alpha"},
			Limits: map[string]float64{"cost_usd": 50}, DelegationsLeft: 2, ExpiresAt: testNow.Add(72 * time.Hour)},
		{ID: "m2", ParentID: "m1", IssuerKind: "agent", Issuer: "a1", Holder: "a2",
			Scope:  []string{"code.write@project:alpha"},
			Limits: map[string]float64{"cost_usd": 12.5, "files": 3}, DelegationsLeft: 0, Depth: 1,
			ExpiresAt: testNow.Add(48 * time.Hour)},
	}
}

func exportReq(c []credential.Link) credential.ExportRequest {
	return credential.ExportRequest{Chain: c, HolderKey: pub(agentSeed), TTL: 24 * time.Hour, Now: testNow,
		Key: credential.SigningKey{Kid: "k1", Seed: seed(boardSeed)}}
}

func export(t *testing.T, c []credential.Link) (*credential.Exported, []*tenuo.Signed) {
	t.Helper()
	e, err := served(t).Export(context.Background(), exportReq(c))
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
	return e, st
}

// orgStack is a one-warrant stack an outside org (orgSeed) issued to the
// agent with the given tools; mutate edits the payload before signing.
func orgStack(t *testing.T, tools map[string]tenuo.ConstraintSet, mutate func(*tenuo.Payload)) string {
	t.Helper()
	p := &tenuo.Payload{ID: [16]byte{1, 2, 3}, Type: tenuo.Execution, Tools: tools, Holder: pub(agentSeed),
		Issuer: pub(orgSeed), IssuedAt: uint64(testNow.Unix()), ExpiresAt: uint64(testNow.Add(time.Hour).Unix()), MaxDepth: 5}
	if mutate != nil {
		mutate(p)
	}
	s, err := tenuo.Sign(p, seed(orgSeed))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tenuo.EncodeStack([]*tenuo.Signed{s})
	if err != nil {
		t.Fatal(err)
	}
	return tenuo.Text(b)
}

func importReq(cred string) credential.ImportRequest {
	return credential.ImportRequest{Credential: cred, TrustedRoots: [][]byte{pub(orgSeed)},
		HolderKeys: [][]byte{pub(agentSeed)}, Now: testNow}
}

func credentialRevocation(ids []string) credential.RevocationRequest {
	return credential.RevocationRequest{Revoked: ids, Version: 4, Now: testNow, Key: credential.SigningKey{Kid: "k1", Seed: seed(boardSeed)}}
}
