package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/credential"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// testKey derives a deterministic board or agent key from a label.
func testKey(label string) (credential.SigningKey, ed25519.PublicKey) {
	seed := sha256.Sum256([]byte(label))
	priv := ed25519.NewKeyFromSeed(seed[:])
	return credential.SigningKey{Kid: "kid-" + label, Seed: seed[:]}, priv.Public().(ed25519.PublicKey)
}

// chain builds n links, root first: each narrower than its parent.
func chain(n int) []credential.Link {
	links := []credential.Link{{
		ID: "m-0", IssuerKind: "human", Issuer: "h-1", Holder: "a-0",
		Scope:  []string{"task.work@project:web", "task.read@project:web", "task.read@project:api"},
		Limits: map[string]float64{"cost": 10, "runs": 3}, DelegationsLeft: n, ExpiresAt: t0.Add(48 * time.Hour),
	}}
	for i := 1; i < n; i++ {
		links = append(links, credential.Link{
			ID: "m-" + string(rune('0'+i)), ParentID: links[i-1].ID, IssuerKind: "agent", Issuer: links[i-1].Holder,
			Holder: "a-" + string(rune('0'+i)), Scope: []string{"task.work@project:web", "task.read@project:web"},
			Limits: map[string]float64{"cost": 5.5}, DelegationsLeft: n - i, Depth: i, ExpiresAt: t0.Add(24 * time.Hour),
		})
	}
	return links
}

func exportReq(t testing.TB, n int) (credential.ExportRequest, ed25519.PublicKey) {
	t.Helper()
	key, pub := testKey("board")
	_, agent := testKey("agent")
	return credential.ExportRequest{Chain: chain(n), HolderKey: agent, TTL: 8 * time.Hour, Now: t0, Key: key}, pub
}
