// Package tenuo writes and reads Tenuo warrants, warrant stacks, proofs of
// possession and signed revocation lists in Tenuo's wire format v1.
//
// Tenuo's verifier is Rust (ciborium + serde), and the bytes it signs and
// rebuilds are what serde happens to write, not RFC 8949 deterministic CBOR.
// This package therefore emits every map in its own order: integer-keyed
// payload maps ascending, struct-shaped maps in Rust field order, and
// BTreeMap-shaped maps in raw byte order of their keys. Floats use the
// shortest form that loses nothing, as ciborium does. The field-by-field
// rules come from shared/reference/credential-formats.md §2, which corrects
// the published spec; the golden tests hold them to Tenuo's vectors.
//
// The package is part of the public SDK because both sides need it: the
// credential-tenuo plugin mints with it, and a tool server outside the
// board verifies exported stacks with it, offline, trusting only the
// board's published keys (VerifyStack, Payload.Authorize, VerifyPoP,
// ParseSRL; see docs/examples/tenuo-verifier).
package tenuo

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/fxamacker/cbor/v2"
)

// encMode is built per use rather than kept in a package variable, so the
// package holds no state; building a mode only validates options.
func encMode() cbor.EncMode {
	em, err := cbor.EncOptions{
		ShortestFloat: cbor.ShortestFloat16, // ciborium writes 100.0 as f9 5640
		Sort:          cbor.SortNone,        // omap decides the order
		IndefLength:   cbor.IndefLengthForbidden,
		NaNConvert:    cbor.NaNConvert7e00,
		InfConvert:    cbor.InfConvertFloat16,
	}.EncMode()
	if err != nil {
		panic(err) // constant options: unreachable
	}
	return em
}

// decMode is strict: Tenuo rejects duplicate keys, and a stack that carries
// indefinite lengths or trailing bytes is not one Tenuo wrote.
func decMode() cbor.DecMode {
	dm, err := cbor.DecOptions{
		DupMapKey:       cbor.DupMapKeyEnforcedAPF,
		IndefLength:     cbor.IndefLengthForbidden,
		IntDec:          cbor.IntDecConvertSignedOrFail,
		DefaultMapType:  reflect.TypeOf(map[string]any{}),
		MaxNestedLevels: 40,
		TagsMd:          cbor.TagsForbidden,
	}.DecMode()
	if err != nil {
		panic(err) // constant options: unreachable
	}
	return dm
}

// entry is one key/value of an ordered map.
type entry struct {
	k, v any
}

// omap is a CBOR map written in exactly the order of its entries; it is how
// this package reproduces serde's struct and BTreeMap orders.
type omap []entry

// MarshalCBOR writes the header and then each entry in order.
func (m omap) MarshalCBOR() ([]byte, error) {
	em := encMode()
	out := head(5, uint64(len(m)))
	for _, e := range m {
		for _, x := range []any{e.k, e.v} {
			b, err := em.Marshal(x)
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
	}
	return out, nil
}

// head is a CBOR item head (major type and argument), minimal length.
func head(major byte, n uint64) []byte {
	m := major << 5
	switch {
	case n < 24:
		return []byte{m | byte(n)}
	case n <= 0xff:
		return []byte{m | 24, byte(n)}
	case n <= 0xffff:
		return []byte{m | 25, byte(n >> 8), byte(n)}
	case n <= 0xffffffff:
		return []byte{m | 26, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return []byte{m | 27, byte(n >> 56), byte(n >> 48), byte(n >> 40), byte(n >> 32),
		byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// ints writes bytes as serde writes a [u8; N] or Vec<u8> without
// serde_bytes: an array of unsigned integers, not a byte string.
func ints(b []byte) []uint64 {
	out := make([]uint64, len(b))
	for i, x := range b {
		out[i] = uint64(x)
	}
	return out
}

// fromInts reads an array of unsigned integers back into bytes.
func fromInts(raw cbor.RawMessage) ([]byte, error) {
	var xs []uint64
	if err := decMode().Unmarshal(raw, &xs); err != nil {
		return nil, err
	}
	out := make([]byte, len(xs))
	for i, x := range xs {
		if x > 0xff {
			return nil, fmt.Errorf("byte array element %d out of range", x)
		}
		out[i] = byte(x)
	}
	return out, nil
}

// sortedKeys is Rust's BTreeMap<String, _> order: raw bytes compared
// lexicographically, which Go's string comparison already is.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// value converts a ConstraintValue or call argument (text, integer, float,
// bool, list, text-keyed map, nil) to its encodable form, ordering maps the
// way serde orders a BTreeMap.
func value(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, float64, int64:
		return x, nil
	case int:
		return int64(x), nil
	case uint64:
		return x, nil
	case float32:
		return float64(x), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			ev, err := value(e)
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	case map[string]any:
		out := make(omap, 0, len(x))
		for _, k := range sortedKeys(x) {
			ev, err := value(x[k])
			if err != nil {
				return nil, err
			}
			out = append(out, entry{k, ev})
		}
		return out, nil
	}
	return nil, fmt.Errorf("tenuo: unsupported value type %T", v)
}
