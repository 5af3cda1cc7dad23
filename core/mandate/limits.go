package mandate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/sdk/errs"
)

// Limits are free-form numeric ceilings ({"thb": 100000}, {"runs": 50,
// "turns": 2000}). A key no link limits is unlimited.

// limitsShape is what a person or agent is told when limits are not a JSON
// object at all.
const limitsShape = `limits must be a JSON object of numbers of at least 0, like {"thb": 100000}`

// ParseLimits reads limits as a person or agent sends them: a JSON object
// whose values are finite numbers of at least 0. Empty input and null mean no
// limits. It returns InvalidRequest for anything else: "limit k=v must be a
// number of at least 0" naming the first bad key (in key order) for a
// negative, NaN, infinite, string, boolean, null, array or object value, and
// a message showing the expected shape when the text is not a JSON object.
// Python's non-standard NaN, Infinity and -Infinity literals are read as such
// so that the message can name their key.
func ParseLimits(raw []byte) (map[string]float64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]float64{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(quoteNonFinite(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errs.E(errs.InvalidRequest, "%s (%v)", limitsShape, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errs.E(errs.InvalidRequest, "%s (trailing data after the object)", limitsShape)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errs.E(errs.InvalidRequest, "%s", limitsShape)
	}
	for k, x := range obj {
		if s, ok := x.(string); ok {
			if f, ok := nonFinite(s); ok {
				obj[k] = f
			}
		}
	}
	return CheckAmounts(obj, "limit")
}

// nonFinite maps a placeholder quoteNonFinite wrote back to its value.
func nonFinite(s string) (float64, bool) {
	switch s {
	case "\x00NaN":
		return math.NaN(), true
	case "\x00Infinity":
		return math.Inf(1), true
	case "\x00-Infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

// quoteNonFinite replaces the bare NaN, Infinity and -Infinity literals
// outside strings with placeholder strings, so that the decoder accepts them
// and ParseLimits can refuse them by key.
func quoteNonFinite(raw []byte) []byte {
	if !bytes.Contains(raw, []byte("NaN")) && !bytes.Contains(raw, []byte("Infinity")) {
		return raw
	}
	literals := [...]string{"NaN", "Infinity", "-Infinity"}
	out := make([]byte, 0, len(raw)+16)
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			out = append(out, c)
			continue
		}
		if c == '"' {
			inString = true
		}
		replaced := false
		for _, lit := range literals {
			if bytes.HasPrefix(raw[i:], []byte(lit)) {
				out = append(out, `"\u0000`+lit+`"`...)
				i += len(lit) - 1
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, c)
		}
	}
	return out
}

// CheckAmounts checks amounts handed in to be counted against limits (or to
// become limits): every value must be a finite number of at least 0, so a
// report can never hand budget back. It returns the amounts as float64s, or
// InvalidRequest "<what> k=v must be a number of at least 0" for the first
// bad key in key order (booleans, strings, null and containers are not
// numbers).
func CheckAmounts(amounts map[string]any, what string) (map[string]float64, error) {
	out := make(map[string]float64, len(amounts))
	keys := make([]string, 0, len(amounts))
	for k := range amounts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		f, ok := amountOf(amounts[k])
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return nil, errs.E(errs.InvalidRequest, "%s %s=%s must be a number of at least 0", what, k, shown(amounts[k]))
		}
		out[k] = f
	}
	return out, nil
}

// checkLimits is CheckAmounts for values that are already float64s.
func checkLimits(limits map[string]float64, what string) error {
	amounts := make(map[string]any, len(limits))
	for k, v := range limits {
		amounts[k] = v
	}
	_, err := CheckAmounts(amounts, what)
	return err
}

func amountOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// shown writes a value the way the caller sent it: JSON, with NaN and the
// infinities spelled as Python spells them in JSON.
func shown(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case float64:
		return num(x)
	case float32:
		return num(float64(x))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// num spells a limit or amount in messages as canonical JSON does: integral
// values without a fraction (100000, not 100000.0 or 1e+05).
func num(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	b, err := canon.Marshal(f)
	if err != nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(b)
}

// pyG spells a number as Python's "{:g}" does (six significant digits), the
// spelling of the original limit_exceeded messages.
func pyG(f float64) string {
	return strconv.FormatFloat(f, 'g', 6, 64)
}
