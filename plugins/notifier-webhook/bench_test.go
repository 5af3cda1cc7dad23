package main

import (
	"net/http"
	"testing"

	"github.com/pactboard/pact/sdk/notifier"
)

// BenchmarkDeliver measures signed deliveries per second to a local HTTPS
// receiver over kept-alive connections: the plugin's own cost (JSON,
// HMAC, the address check, TLS) without the gRPC hop or the outbox.
func BenchmarkDeliver(b *testing.B) {
	r := newReceiver(b, http.StatusNoContent, "")
	w := New(Options{AllowPrivate: true, RootCAs: r.roots()})
	dest := notifier.Destination{URL: r.srv.URL, Secret: testSecret}
	n := sample()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Deliver(b.Context(), dest, n); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}

// BenchmarkDeliverParallel is the same with concurrent deliveries, as
// several outbox workers share one plugin process.
func BenchmarkDeliverParallel(b *testing.B) {
	r := newReceiver(b, http.StatusNoContent, "")
	w := New(Options{AllowPrivate: true, RootCAs: r.roots()})
	dest := notifier.Destination{URL: r.srv.URL, Secret: testSecret}
	n := sample()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := w.Deliver(b.Context(), dest, n); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}
