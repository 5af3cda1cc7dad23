// Package canon is PACT Board's canonical JSON: the one byte sequence every
// hash and signature is computed over. docs/canonical-json.md states the
// rules; testdata/vectors.json pins them.
//
// Rules: object keys sorted by code point at every level; no whitespace;
// strings in raw UTF-8 with only '"', '\\' and control characters escaped
// (\n \r \t \b \f, else \u00xx); integral numbers as integers (100000.0 is
// 100000, 1e20 is 100000000000000000000); other numbers in Python's float
// repr (shortest round trip, exponent form below 1e-4 and from 1e16:
// 1e-05, 1.5e+16); NaN and infinities are refused.
package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Marshal returns the canonical JSON of v. v may be any value encoding/json
// accepts. A top-level or map-held time.Time is written with ISO; one inside
// a struct keeps encoding/json's spelling, so hashed times are passed as ISO
// strings.
func Marshal(v any) ([]byte, error) {
	tree, err := normalize(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := encode(&b, tree); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Hash returns the lowercase hex SHA-256 of v's canonical JSON.
func Hash(v any) (string, error) {
	b, err := Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// ISO writes t as the instant in UTC, YYYY-MM-DDTHH:MM:SS+00:00, with
// .ffffff microseconds only when they are not zero. Finer precision is
// truncated: PostgreSQL keeps microseconds.
func ISO(t time.Time) string {
	return string(AppendISO(nil, t))
}

// AppendISO appends ISO's spelling of t to dst, for encoders that build
// hashed bytes without a string per field. It writes the digits itself, the
// same as time's layouts "2006-01-02T15:04:05[.000000]+00:00" (the log's
// verification spells a time per entry); years beyond 0–9999 go through the
// layouts.
func AppendISO(dst []byte, t time.Time) []byte {
	t = t.UTC().Truncate(time.Microsecond)
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		if t.Nanosecond() == 0 {
			return t.AppendFormat(dst, "2006-01-02T15:04:05+00:00")
		}
		return t.AppendFormat(dst, "2006-01-02T15:04:05.000000+00:00")
	}
	hour, minute, second := t.Clock()
	digits := func(dst []byte, v, n int) []byte { // v in n digits, zero-padded
		dst = append(dst, "000000"[:n]...)
		for i := len(dst) - 1; v > 0; i, v = i-1, v/10 {
			dst[i] = byte('0' + v%10)
		}
		return dst
	}
	dst = append(digits(dst, year, 4), '-')
	dst = append(digits(dst, int(month), 2), '-')
	dst = append(digits(dst, day, 2), 'T')
	dst = append(digits(dst, hour, 2), ':')
	dst = append(digits(dst, minute, 2), ':')
	dst = digits(dst, second, 2)
	if us := t.Nanosecond() / 1000; us != 0 {
		dst = digits(append(dst, '.'), us, 6)
	}
	return append(dst, "+00:00"...)
}

// normalize turns v into a tree of map[string]any, []any, string, bool, nil
// and json.Number.
func normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, json.Number:
		return x, nil
	case time.Time:
		return ISO(x), nil
	case float64:
		return number(x)
	case float32:
		return number(float64(x))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return json.Number(fmt.Sprint(x)), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, nil
	}
	// Anything else (structs, typed maps, uuids, json.RawMessage) goes through
	// encoding/json once, keeping numbers exact.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return Decode(raw)
}

// Decode parses JSON text into the tree Marshal encodes, keeping numbers exact.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	// More() reports false before a stray ']' or '}', so the bytes left
	// after the value are checked directly: only whitespace may follow.
	if len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, fmt.Errorf("canonical json: trailing data after the value")
	}
	return normalize(tree)
}

func number(f float64) (json.Number, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("canonical json: %v is not a JSON number", f)
	}
	if f == math.Trunc(f) {
		i, _ := new(big.Float).SetFloat64(f).Int(nil)
		return json.Number(i.String()), nil
	}
	return json.Number(pythonRepr(f)), nil
}

// pythonRepr formats a finite, non-integral float as Python's repr does.
// Every float from 2^52 (below 1e16) on is integral, and the shortest digits
// of a non-integral one never spell an integer, so of repr's forms only two
// remain: positional with a fraction, and the exponent form below 1e-4.
func pythonRepr(f float64) string {
	// Shortest round-trip digits, as d.ddde±x.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	x, _ := strconv.Atoi(exp)
	neg := strings.HasPrefix(mant, "-")
	digits := strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1)
	var out string
	if x >= -4 {
		if x < 0 {
			out = "0." + strings.Repeat("0", -x-1) + digits
		} else {
			out = digits[:x+1] + "." + digits[x+1:]
		}
	} else {
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		out += fmt.Sprintf("e-%02d", -x)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// canonicalNumber rewrites a JSON number literal by the integral/float rules.
func canonicalNumber(n json.Number) (string, error) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return "", fmt.Errorf("canonical json: bad number %q", s)
		}
		return i.String(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("canonical json: bad number %q", s)
	}
	out, err := number(f)
	return string(out), err
}

func encode(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		writeString(b, x)
	case json.Number:
		s, err := canonicalNumber(x)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encode(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // byte order of UTF-8 is code point order
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := encode(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("canonical json: unexpected %T", v)
	}
	return nil
}
