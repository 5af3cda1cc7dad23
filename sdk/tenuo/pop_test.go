package tenuo

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

type popFixture struct {
	IssuerPriv string `json:"issuer_priv_hex"`
	HolderPriv string `json:"holder_priv_hex"`
	Cases      []struct {
		Name      string         `json:"name"`
		Tool      string         `json:"tool"`
		Args      map[string]any `json:"args"`
		Warrant   string         `json:"warrant_b64"`
		Timestamp int64          `json:"timestamp"`
		Signature string         `json:"expected_signature_hex"`
	} `json:"cases"`
}

// jsonArgs turns JSON numbers into what Tenuo signs: integral numbers as
// integers, the rest as floats.
func jsonArgs(t *testing.T, raw map[string]any) map[string]any {
	t.Helper()
	var conv func(v any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
			f, err := x.Float64()
			if err != nil {
				t.Fatal(err)
			}
			return f
		case []any:
			for i := range x {
				x[i] = conv(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = conv(x[k])
			}
		}
		return v
	}
	return conv(raw).(map[string]any)
}

func readPoP(t *testing.T) popFixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorsDir(t), "pop_canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f popFixture
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 10 {
		t.Fatalf("pop_canonical.json: only %d cases", len(f.Cases))
	}
	return f
}

// Each case of Tenuo's own PoP fixture: the warrant decodes and its
// signature verifies and re-signs identically, our PoP signature equals
// Tenuo's byte for byte, and the verifier accepts it near the timestamp
// and refuses it far from it, for another tool or other arguments.
func TestGoldenPoPCanonical(t *testing.T) {
	f := readPoP(t)
	issuerSeed, _ := hex.DecodeString(f.IssuerPriv)
	holderSeed, _ := hex.DecodeString(f.HolderPriv)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			raw, err := FromText(c.Warrant)
			if err != nil {
				t.Fatal(err)
			}
			st, err := DecodeStack(raw)
			if err != nil || len(st) != 1 {
				t.Fatalf("decode: %v", err)
			}
			w := st[0]
			if !w.VerifySignature() {
				t.Fatal("warrant signature does not verify")
			}
			if again, err := Sign(w.Payload, issuerSeed); err != nil || !bytes.Equal(again.Raw, w.Raw) || !bytes.Equal(again.Signature, w.Signature) {
				t.Fatalf("re-signing the warrant differs: %v", err)
			}
			env, _ := w.Encode()
			if !bytes.Equal(env, raw) {
				t.Fatal("envelope re-encoding differs")
			}
			args := jsonArgs(t, c.Args)
			now := time.Unix(c.Timestamp, 0)
			sig, err := SignPoP(holderSeed, w.Payload.ID, c.Tool, args, now)
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(sig) != c.Signature {
				t.Fatalf("PoP signature\n got %x\nwant %s", sig, c.Signature)
			}
			for _, d := range []time.Duration{0, 29 * time.Second, -30 * time.Second, 59 * time.Second} {
				if err := VerifyPoP(w.Payload, c.Tool, args, sig, now.Add(d)); err != nil {
					t.Errorf("at %+v: %v", d, err)
				}
			}
			for _, d := range []time.Duration{-2 * time.Minute, 2 * time.Minute} {
				if VerifyPoP(w.Payload, c.Tool, args, sig, now.Add(d)) == nil {
					t.Errorf("accepted at %+v", d)
				}
			}
			if VerifyPoP(w.Payload, c.Tool+"x", args, sig, now) == nil {
				t.Error("accepted for another tool")
			}
			more := map[string]any{"extra": "x"}
			for k, v := range args {
				more[k] = v
			}
			if VerifyPoP(w.Payload, c.Tool, more, sig, now) == nil {
				t.Error("accepted for other arguments")
			}
		})
	}
}

// A.20.1: the attacker's PoP over the same call is refused, the holder's
// is accepted. (The A.* PoPs use the tnu_wrt_ id form, which Tenuo's real
// verifier does not, so only the key mismatch is checked here.)
func TestPoPWrongHolderRefused(t *testing.T) {
	w := sectionStack(t, readBlocks(t), "A.20.1")[0].Payload
	now := time.Unix(1704067200, 0)
	args := map[string]any{"path": "/data/x"}
	bad, _ := SignPoP(seedOf(0xff), w.ID, "read_file", args, now)
	if VerifyPoP(w, "read_file", args, bad, now) == nil {
		t.Fatal("attacker PoP accepted")
	}
	holder := seeds()[string(w.Holder)]
	good, _ := SignPoP(holder, w.ID, "read_file", args, now)
	if err := VerifyPoP(w, "read_file", args, good, now); err != nil {
		t.Fatal(err)
	}
}
