package canon_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
)

// The vectors were produced by Python's json.dumps(sort_keys=True,
// separators=(",", ":"), ensure_ascii=False) after turning integral floats
// into ints, which is what the original board hashed.
func TestGoldenVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/vectors.json")
	require.NoError(t, err)
	var vectors []struct{ Input, Canonical, Sha256 string }
	require.NoError(t, json.Unmarshal(raw, &vectors))
	require.NotEmpty(t, vectors)
	for _, v := range vectors {
		tree, err := canon.Decode([]byte(v.Input))
		require.NoError(t, err, v.Input)
		got, err := canon.Marshal(tree)
		require.NoError(t, err)
		require.Equal(t, v.Canonical, string(got), "input %s", v.Input)
		sum, err := canon.Hash(tree)
		require.NoError(t, err)
		require.Equal(t, v.Sha256, sum)
	}
}

func TestGoValuesEncodeLikeTheirJSON(t *testing.T) {
	type link struct {
		Scope  []string           `json:"scope"`
		Limits map[string]float64 `json:"limits"`
		When   time.Time          `json:"when"`
	}
	at := time.Date(2026, 11, 29, 21, 0, 0, 0, time.FixedZone("x", 3600))
	got, err := canon.Marshal(map[string]any{
		"z": link{Scope: []string{"b", "a"}, Limits: map[string]float64{"runs": 50, "cost": 0.1}, When: at},
		"a": at,
		"n": 3,
	})
	require.NoError(t, err)
	require.Equal(t, `{"a":"2026-11-29T20:00:00+00:00","n":3,"z":{"limits":{"cost":0.1,"runs":50},"scope":["b","a"],"when":"2026-11-29T21:00:00+01:00"}}`, string(got),
		"a time inside a struct keeps encoding/json's spelling; hashed times are passed as canon.ISO strings")
}

func TestRefusesNonFiniteNumbers(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := canon.Marshal(map[string]any{"x": f})
		require.Error(t, err)
	}
}

func TestISO(t *testing.T) {
	require.Equal(t, "2026-11-29T21:38:42+00:00", canon.ISO(time.Date(2026, 11, 29, 22, 38, 42, 0, time.FixedZone("", 3600))))
	require.Equal(t, "2026-11-29T21:38:42.000120+00:00", canon.ISO(time.Date(2026, 11, 29, 21, 38, 42, 120999, time.UTC)))
}

// AppendISO writes its digits itself: it must spell every time as time's
// layouts do.
func TestAppendISOMatchesTheLayouts(t *testing.T) {
	layout := func(t time.Time) string {
		t = t.UTC().Truncate(time.Microsecond)
		if t.Nanosecond() == 0 {
			return t.Format("2006-01-02T15:04:05+00:00")
		}
		return t.Format("2006-01-02T15:04:05.000000+00:00")
	}
	times := []time.Time{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 1000, time.UTC), time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 29, 21, 38, 42, 999, time.FixedZone("", 3600)), time.Date(294276, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		times = append(times, time.Unix(r.Int64N(1<<38)-1<<37, r.Int64N(1e9)).In(time.FixedZone("", r.IntN(50000)-25000)))
	}
	for _, at := range times {
		require.Equal(t, layout(at), string(canon.AppendISO([]byte{}, at)), "%v", at)
		require.Equal(t, layout(at), canon.ISO(at))
	}
}

func FuzzMarshalIsStable(f *testing.F) {
	f.Add(`{"a":[1,2.5,"x"],"b":{"c":null}}`)
	f.Add(`1e-7`)
	f.Fuzz(func(t *testing.T, s string) {
		tree, err := canon.Decode([]byte(s))
		if err != nil {
			return
		}
		once, err := canon.Marshal(tree)
		if err != nil {
			return
		}
		again, err := canon.Decode(once)
		require.NoError(t, err, "canonical output must parse: %s", once)
		twice, err := canon.Marshal(again)
		require.NoError(t, err)
		require.Equal(t, string(once), string(twice), "canonical JSON must be a fixed point")
	})
}

// A payload is one JSON value: anything after it but whitespace is refused,
// including a stray closing bracket, which json.Decoder.More does not report.
func TestDecodeRefusesTrailingData(t *testing.T) {
	for _, raw := range []string{`{"a":1}]`, `{"a":1}}`, `[1]]`, `{"a":1} {"b":2}`, `1 2`, `"x",`} {
		_, err := canon.Decode([]byte(raw))
		require.Error(t, err, raw)
		require.Contains(t, err.Error(), "trailing data", raw)
	}
	for _, raw := range []string{`{"a":1}`, " {\"a\":1} \n\t", `[1]` + "\r\n"} {
		_, err := canon.Decode([]byte(raw))
		require.NoError(t, err, raw)
	}
}
