package canon_test

import (
	"testing"

	"github.com/pactboard/pact/core/canon"
)

// benchPayload is a stored payload as jsonb hands it back, with the number
// forms the encoder spells: integers, fractions, exponents, tiny and large.
var benchPayload = []byte(`{"n": 12, "cost": 0.00001, "rate": 0.25, "limit": 100000.0, "big": 1e20,` +
	` "third": 0.3333333333333333, "neg": -2.50, "tiny": 1.5e-7, "huge": 1.5e300, "max": 4503599627370495.5,` +
	` "note": "a\"b \u00e9", "status": "working", "tags": ["x", "y", {"b": null, "a": true}]}`)

// BenchmarkRecoderAppend is the log's verification re-encoding one payload
// on the fast path.
func BenchmarkRecoderAppend(b *testing.B) {
	dst := make([]byte, 0, 4096)
	var r canon.Recoder
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Append(dst, benchPayload); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalOfDecode is the slow path the fast one must agree with.
func BenchmarkMarshalOfDecode(b *testing.B) {
	tree, err := canon.Decode(benchPayload)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canon.Marshal(tree); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNonIntegralNumbers is the encoder's one slow spelling: a
// fraction or a small number in Python's float repr.
func BenchmarkNonIntegralNumbers(b *testing.B) {
	raw := []byte(`[0.00001, 0.25, 0.3333333333333333, -2.5, 1.5e-7, 4503599627370495.5, 123.456, 5e-324]`)
	dst := make([]byte, 0, 4096)
	var r canon.Recoder
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Append(dst, raw); err != nil {
			b.Fatal(err)
		}
	}
}
