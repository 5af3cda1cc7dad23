package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"
)

// BenchmarkMint is one Biscuit export (one block per ledger link, signed
// with the board's key) at chain depth 1 and 5.
func BenchmarkMint(b *testing.B) {
	for _, links := range []int{2, 6} {
		b.Run(fmt.Sprintf("depth=%d", links-1), func(b *testing.B) {
			req, _ := exportReq(b, links)
			for range b.N {
				if _, err := New().Export(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify is a verifier's work per call: parse, check every block's
// signature, the revocation ids and the Datalog for one call.
func BenchmarkVerify(b *testing.B) {
	for _, links := range []int{2, 6} {
		b.Run(fmt.Sprintf("depth=%d", links-1), func(b *testing.B) {
			req, pub := exportReq(b, links)
			e, err := New().Export(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			call := Call{Tool: "task.work", Project: "web", Args: map[string]any{"task_id": "t-1", "cost": 1.0, "runs": 1.0}, Now: t0.Add(time.Hour)}
			b.ResetTimer()
			for range b.N {
				if err := Authorize(e.Credential, []ed25519.PublicKey{pub}, nil, call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
