package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/tenuo"
)

// deepChain is n ledger links, each narrowing the last.
func deepChain(n int) []credential.Link {
	links := []credential.Link{{ID: "m0", IssuerKind: "human", Issuer: "h1", Holder: "a0",
		Scope: []string{"code.write@project:alpha"}, Limits: map[string]float64{"cost_usd": 50},
		DelegationsLeft: n, ExpiresAt: testNow.Add(72 * time.Hour)}}
	for i := 1; i < n; i++ {
		links = append(links, credential.Link{ID: fmt.Sprintf("m%d", i), ParentID: links[i-1].ID, IssuerKind: "agent",
			Issuer: links[i-1].Holder, Holder: fmt.Sprintf("a%d", i), Scope: []string{"code.write@project:alpha"},
			Limits: map[string]float64{"cost_usd": 50 - float64(i)}, DelegationsLeft: n - i, Depth: i,
			ExpiresAt: testNow.Add(48 * time.Hour)})
	}
	return links
}

// BenchmarkMint is one Tenuo export (a board-signed warrant per ledger link
// plus the agent's leaf) at chain depth 1 and 5.
func BenchmarkMint(b *testing.B) {
	for _, links := range []int{2, 6} {
		b.Run(fmt.Sprintf("depth=%d", links-1), func(b *testing.B) {
			req := exportReq(deepChain(links))
			for range b.N {
				if _, err := New().Export(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify is a verifier's work per stack: decode, then every
// warrant's signature, linkage and narrowing up to a trusted root.
func BenchmarkVerify(b *testing.B) {
	for _, links := range []int{2, 6} {
		b.Run(fmt.Sprintf("depth=%d", links-1), func(b *testing.B) {
			e, err := New().Export(context.Background(), exportReq(deepChain(links)))
			if err != nil {
				b.Fatal(err)
			}
			opts := tenuo.VerifyOptions{TrustedRoots: []ed25519.PublicKey{pub(boardSeed)}, Now: testNow}
			b.ResetTimer()
			for range b.N {
				raw, err := tenuo.FromText(e.Credential)
				if err != nil {
					b.Fatal(err)
				}
				st, err := tenuo.DecodeStack(raw)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tenuo.VerifyStack(st, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
