package mandate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// NaN and Infinity are literals only outside strings: inside a key or a
// string value, wherever they start, they are text, and a string ends only
// at its closing quote.
func TestParseLimitsLeavesNonFiniteWordsInsideStringsAlone(t *testing.T) {
	for in, want := range map[string]map[string]float64{
		`{"NaN": 1}`:                          {"NaN": 1},
		`{"xNaN": 1}`:                         {"xNaN": 1},
		`{"to Infinity": 2, "a-Infinity": 3}`: {"to Infinity": 2, "a-Infinity": 3},
		`{"q\"NaN": 4}`:                       {`q"NaN`: 4},
		`{"back\\": 5, "NaNa": 6}`:            {`back\`: 5, "NaNa": 6},
	} {
		got, err := mandate.ParseLimits([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for in, msg := range map[string]string{
		`{"a": "xNaN"}`:        `limit a="xNaN" must be a number of at least 0`,
		`{"a": "to Infinity"}`: `limit a="to Infinity" must be a number of at least 0`,
		`{"xNaN": NaN}`:        "limit xNaN=NaN must be a number of at least 0",
		`{"a": 1, "b": "-Infinity", "c": -Infinity}`: `limit b="-Infinity" must be a number of at least 0`,
	} {
		_, err := mandate.ParseLimits([]byte(in))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), in)
		require.Equal(t, msg, err.(*errs.Error).Message, in)
	}
}

// Amounts in messages are spelled as canonical JSON spells them: integral
// values in full however large, fractions as Python's repr, never Go's
// exponent form (1e+06) from a million on.
func TestAmountsInMessagesAreSpelledAsCanonicalJSON(t *testing.T) {
	for v, want := range map[float64]string{
		-1:                   "-1",
		-0.5:                 "-0.5",
		-100000:              "-100000",
		-999999:              "-999999",
		-1e6:                 "-1000000",
		-123456.75:           "-123456.75",
		-1234567.5:           "-1234567.5",
		-1.5e16:              "-15000000000000000",
		-1e20:                "-100000000000000000000",
		-1e21:                "-1000000000000000000000",
		-0.0001:              "-0.0001",
		-0.00001:             "-1e-05",
		-1.25e-7:             "-1.25e-07",
		-0.30000000000000004: "-0.30000000000000004",
	} {
		_, err := mandate.CheckAmounts(map[string]any{"thb": v}, "usage")
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), want)
		require.Equal(t, "usage thb="+want+" must be a number of at least 0", err.(*errs.Error).Message)
	}
}

func TestChildLimitAboveTheParentsIsSpelledInFull(t *testing.T) {
	w := newWorld(t)
	root := w.root("a1", web, map[string]float64{"thb": 1e6}, 1)
	_, err := w.issueChild(root, mandate.ChildInput{Holder: "a2", Scope: web, Limits: map[string]float64{"thb": 2.5e6}})
	e := requireRefusal(t, err, errs.LimitExceeded, root.ID.String())
	require.Equal(t, "child limit thb=2500000 is above 1000000 on mandate "+root.ID.String(), e.Message)
}
