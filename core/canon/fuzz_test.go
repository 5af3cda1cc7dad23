package canon_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/pactboard/pact/core/canon"
)

// FuzzCanonicalJSON: the fast path (AppendJSON) and the slow one
// (Marshal(Decode)) agree on every input, bytes and refusals alike; what
// they write is JSON, and writing it again changes nothing.
func FuzzCanonicalJSON(f *testing.F) {
	for _, seed := range []string{`{}`, `[]`, `null`, `{"b":1,"a":[2,{"d":null,"c":true}]}`,
		`{"limit":100000.0,"half":0.5,"neg":-2.50,"big":1e20,"tiny":0.00001,"huge":1.5e300}`,
		`"a\u00e9\ud83d\ude00\n\"\\"`, `{"a":1,"a":2}`, ` [1 , -0, 1E2, 12345678901234567890123] `,
		`"\xff\xfe"`, `1e400`, `{"a":`, `-0.0`, `[0.1,1e-7,123456789.123]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 4096 {
			t.Skip("math/big makes long integers quadratic; the kernel bounds them (SEC-001)")
		}
		fast, fastErr := canon.AppendJSON(nil, raw)
		var slow []byte
		tree, slowErr := canon.Decode(raw)
		if slowErr == nil {
			slow, slowErr = canon.Marshal(tree)
		}
		if (fastErr == nil) != (slowErr == nil) {
			t.Fatalf("fast path error %v, slow path error %v", fastErr, slowErr)
		}
		if fastErr != nil {
			return
		}
		if !bytes.Equal(fast, slow) {
			t.Fatalf("fast %q, slow %q", fast, slow)
		}
		if !json.Valid(fast) {
			t.Fatalf("canonical output %q is not JSON", fast)
		}
		again, err := canon.AppendJSON(nil, fast)
		if err != nil || !bytes.Equal(again, fast) {
			t.Fatalf("re-encoding %q gave %q, %v", fast, again, err)
		}
	})
}
