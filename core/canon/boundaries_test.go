package canon_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
)

// TestNumberFormsAtTheirBoundaries proves the number rule of
// docs/canonical-json.md at each edge of Python's float repr: positional down
// to 1e-4 and exponent form (two exponent digits at least) below it, and
// positional with a fraction up to the largest non-integral float, 2^52-0.5;
// every float from 2^52 on is integral and written as an integer. Marshal of
// the float and AppendJSON of its literal agree.
func TestNumberFormsAtTheirBoundaries(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0.0001, "0.0001"},
		{math.Nextafter(0.0001, 0), "9.999999999999999e-05"},
		{0.00012, "0.00012"},
		{-0.0001, "-0.0001"},
		{0.00001, "1e-05"},
		{-1.5e-7, "-1.5e-07"},
		{1.25e-10, "1.25e-10"},
		{1e-100, "1e-100"},
		{5e-324, "5e-324"},
		{0.5, "0.5"},
		{-0.5, "-0.5"},
		{123.456, "123.456"},
		{1000000000000000.5, "1000000000000000.5"},
		{4503599627370495.5, "4503599627370495.5"},
		{-4503599627370495.5, "-4503599627370495.5"},
		{4503599627370496, "4503599627370496"},
		{1e15, "1000000000000000"},
		{1e16, "10000000000000000"},
		{-1e16, "-10000000000000000"},
		{1e21, "1000000000000000000000"},
	} {
		got, err := canon.Marshal(c.f)
		require.NoError(t, err, "%v", c.f)
		require.Equal(t, c.want, string(got), "Marshal(%v)", c.f)
		for _, lit := range []string{strconv.FormatFloat(c.f, 'g', -1, 64), strconv.FormatFloat(c.f, 'E', -1, 64)} {
			got, err := canon.AppendJSON(nil, []byte(lit))
			require.NoError(t, err, lit)
			require.Equal(t, c.want, string(got), "AppendJSON(%s)", lit)
		}
	}
}

// TestNumberLiteralsOfEveryShape proves that JSON's number grammar, each
// optional part present or not (sign, fraction, exponent with '+', '-' or no
// sign, 'e' or 'E'), is read in full on the fast path and spelled as Marshal
// of Decode spells it.
func TestNumberLiteralsOfEveryShape(t *testing.T) {
	for lit, want := range map[string]string{
		`0`: `0`, `-0`: `0`, `9`: `9`, `-9`: `-9`, `109`: `109`, `90`: `90`,
		`1.5`: `1.5`, `-0.05`: `-0.05`, `10.0`: `10`, `-0.0`: `0`,
		`1e5`: `100000`, `1E5`: `100000`, `1e+5`: `100000`, `1e-5`: `1e-05`, `1E-05`: `1e-05`,
		`2.5e+3`: `2500`, `2.5E-3`: `0.0025`, `-1.5e-7`: `-1.5e-07`, `10e-6`: `1e-05`, `0.000010`: `1e-05`,
	} {
		for _, raw := range []string{lit, "[" + lit + "]", `{"n":` + lit + `}`, "[" + lit + "," + lit + "]"} {
			got, err := canon.AppendJSON(nil, []byte(raw))
			require.NoError(t, err, raw)
			require.Equal(t, strings.ReplaceAll(raw, lit, want), string(got), raw)
		}
	}
}

// TestRecoderFastPathCoversEveryPlainForm proves that every form the fast
// path is documented to take (see Recoder) is taken there, to its edges, with
// no allocation and the bytes of Marshal of Decode: empty and non-empty
// containers side by side, nesting down to maxDepth, integers with each
// digit, strings with spaces before and after escapes, and \u escapes with
// each end of each hex digit range. A form sent to the slow path by mistake
// would give the same bytes, so allocation is what tells the paths apart.
func TestRecoderFastPathCoversEveryPlainForm(t *testing.T) {
	wide := "[" + strings.Repeat(`{},[],{"a":1},[1],{"b":{}},[[]],`, 600) + "0]"
	for name, raw := range map[string]string{
		"empty object":        `{}`,
		"empty array":         `[]`,
		"spaced empties":      `[ { } , [ ] ]`,
		"many containers":     wide,
		"arrays to maxDepth":  strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
		"objects to maxDepth": strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000),
		"mixed to maxDepth":   strings.Repeat(`[{"a":`, 500) + "1" + strings.Repeat("}]", 500),
		"integers":            `[0,9,10,90,109,-0,-9,1234567890]`,
		"zero":                `0`,
		"nine":                `9`,
		"spaces in strings":   `{"a b": " x ", "c": "d\"e f", "g": "\n h"}`,
		"hex digit ranges":    `["\u0000\u0009\u09aF\uFa0f\u00e9\u00C9", "\uA0A0\u0aF9"]`,
		"escapes":             `"\"\\\/\b\f\n\r\t"`,
	} {
		in := []byte(raw)
		requireSameAsMarshal(t, new(canon.Recoder), in)
		dst := make([]byte, 0, 2*len(in)+64)
		var r canon.Recoder
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := r.Append(dst, in); err != nil {
				t.Fatal(err)
			}
		})
		require.Zero(t, allocs, name)
	}
}

// TestFractionsAndExponentsTakeTheFastPath proves that a number with a
// fraction or an exponent (each sign form) is read on the fast path: it
// allocates only for its own spelling, less than Marshal of Decode does.
func TestFractionsAndExponentsTakeTheFastPath(t *testing.T) {
	for _, raw := range []string{`1.5`, `1e5`, `1E+5`, `1e-7`, `[2.5e+3,-1.5E-7,0.25]`} {
		in := []byte(raw)
		requireSameAsMarshal(t, new(canon.Recoder), in)
		dst := make([]byte, 0, 256)
		var r canon.Recoder
		fast := testing.AllocsPerRun(20, func() {
			if _, err := r.Append(dst, in); err != nil {
				t.Fatal(err)
			}
		})
		slow := testing.AllocsPerRun(20, func() {
			tree, err := canon.Decode(in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := canon.Marshal(tree); err != nil {
				t.Fatal(err)
			}
		})
		require.Less(t, fast, slow, "%s: %v allocations on the fast path, %v by Marshal of Decode", raw, fast, slow)
	}
}

// TestNestingDeeperThanDecodeAllowsIsRefused proves that the fast path keeps
// count of depth through arrays and objects alike: what nests deeper than
// encoding/json's 10000 levels is refused by AppendJSON as by Decode, not
// encoded.
func TestNestingDeeperThanDecodeAllowsIsRefused(t *testing.T) {
	for _, raw := range []string{
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		_, err := canon.Decode([]byte(raw))
		require.Error(t, err)
		_, err = canon.AppendJSON(nil, []byte(raw))
		require.Error(t, err)
	}
}

// TestBadUnicodeEscapesAreRefused proves that a \u escape is four hex digits
// inside the input: a digit just outside each range ('/', ':', '@', 'G', '`',
// 'g') and an escape cut short by the end of the input, with no spare
// capacity after it to read, are refused as Decode refuses them.
func TestBadUnicodeEscapesAreRefused(t *testing.T) {
	var r canon.Recoder
	for _, raw := range []string{`"\u/000"`, `"\u:000"`, `"\u@000"`, `"\u0G00"`, "\"\\u00`0\"", `"\u000g"`,
		`"\u`, `"\u1`, `"\u12`, `"\u123`, `"\u12"`, `"\u123"`, `["\u12"]`} {
		in := []byte(raw)
		in = in[:len(in):len(in)]
		_, err := canon.Decode(in)
		require.Error(t, err, raw)
		requireSameAsMarshal(t, &r, in)
	}
}
