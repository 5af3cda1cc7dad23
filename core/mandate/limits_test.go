package mandate_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func TestParseLimitsAcceptsObjectsOfNumbers(t *testing.T) {
	for in, want := range map[string]map[string]float64{
		`{"thb": 100000}`:               {"thb": 100000},
		`{"runs": 50, "turns": 2000.5}`: {"runs": 50, "turns": 2000.5},
		`{"cost_usd": 0}`:               {"cost_usd": 0},
		`{"x": 1e3, "y": 100000.0}`:     {"x": 1000, "y": 100000},
		` {} `:                          {},
		``:                              {},
		`null`:                          {},
		`{"name with \"NaN\"": 1}`:      {`name with "NaN"`: 1},
	} {
		got, err := mandate.ParseLimits([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestParseLimitsRefusesWithTheKey(t *testing.T) {
	for in, msg := range map[string]string{
		`{"thb": -1}`:                  "limit thb=-1 must be a number of at least 0",
		`{"thb": -0.5, "a": 1}`:        "limit thb=-0.5 must be a number of at least 0",
		`{"thb": NaN}`:                 "limit thb=NaN must be a number of at least 0",
		`{"thb": Infinity}`:            "limit thb=Infinity must be a number of at least 0",
		`{"thb": -Infinity}`:           "limit thb=-Infinity must be a number of at least 0",
		`{"thb": 1e400}`:               "limit thb=1e400 must be a number of at least 0",
		`{"thb": "abc"}`:               `limit thb="abc" must be a number of at least 0`,
		`{"thb": "100"}`:               `limit thb="100" must be a number of at least 0`,
		`{"thb": true}`:                "limit thb=true must be a number of at least 0",
		`{"thb": null}`:                "limit thb=null must be a number of at least 0",
		`{"thb": [1]}`:                 "limit thb=[1] must be a number of at least 0",
		`{"thb": {"per_day": 5}}`:      `limit thb={"per_day":5} must be a number of at least 0`,
		`{"b": 1, "a": false, "c": 1}`: "limit a=false must be a number of at least 0",
	} {
		_, err := mandate.ParseLimits([]byte(in))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), in)
		require.Equal(t, msg, err.(*errs.Error).Message, in)
	}
}

func TestParseLimitsRefusesWhatIsNotAnObject(t *testing.T) {
	for _, in := range []string{`[1]`, `"abc"`, `5`, `true`, `{"a": 1} {}`, `{"a": 1} ]`, `{"a": 1`, `abc`, `{"a": nan}`} {
		_, err := mandate.ParseLimits([]byte(in))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), in)
		require.Contains(t, err.(*errs.Error).Message, `limits must be a JSON object of numbers of at least 0, like {"thb": 100000}`, in)
	}
}

func TestCheckAmounts(t *testing.T) {
	got, err := mandate.CheckAmounts(map[string]any{
		"a": 1, "b": 2.5, "c": json.Number("3"), "d": int64(4), "e": float32(0.5), "f": uint8(0),
	}, "usage")
	require.NoError(t, err)
	require.Equal(t, map[string]float64{"a": 1, "b": 2.5, "c": 3, "d": 4, "e": 0.5, "f": 0}, got)

	got, err = mandate.CheckAmounts(nil, "usage")
	require.NoError(t, err)
	require.Empty(t, got)

	for _, tt := range []struct {
		v   any
		msg string
	}{
		{-1, "reserve runs=-1 must be a number of at least 0"},
		{math.NaN(), "reserve runs=NaN must be a number of at least 0"},
		{math.Inf(1), "reserve runs=Infinity must be a number of at least 0"},
		{true, "reserve runs=true must be a number of at least 0"},
		{"1", `reserve runs="1" must be a number of at least 0`},
		{nil, "reserve runs=null must be a number of at least 0"},
		{json.Number("-2"), "reserve runs=-2 must be a number of at least 0"},
	} {
		_, err := mandate.CheckAmounts(map[string]any{"runs": tt.v}, "reserve")
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
		require.Equal(t, tt.msg, err.(*errs.Error).Message)
	}
}
