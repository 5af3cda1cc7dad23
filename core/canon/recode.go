package canon

import (
	"bytes"
	"slices"
)

// AppendJSON appends the canonical JSON of the JSON text raw to dst: the same
// bytes as Marshal(Decode(raw)), or the same error, without building a tree of
// maps. A Recoder does the same and keeps its buffers between calls.
func AppendJSON(dst, raw []byte) ([]byte, error) {
	return new(Recoder).Append(dst, raw)
}

// A Recoder re-encodes JSON text canonically; the log's verification
// re-encodes every stored payload with one. Not for concurrent use.
//
// The fast path takes only input whose meaning is plain: text that is
// malformed, not UTF-8, holds a \u escape of a surrogate, repeats a key,
// nests deeper than maxDepth or goes on after its value is left to Decode and
// Marshal, so encoding/json's rules for it (U+FFFD, the last duplicate wins,
// its errors) stay the only ones.
type Recoder struct {
	in      []byte
	pos     int
	depth   int
	members []member // the members of the objects being read, innermost last
	tmp     []byte   // the last string that had escapes, decoded
}

// Append is AppendJSON.
func (r *Recoder) Append(dst, raw []byte) ([]byte, error) {
	r.in, r.pos, r.depth, r.members = raw, 0, 0, r.members[:0]
	defer func() { r.in = nil }()
	if out, ok := r.value(dst); ok {
		if r.ws(); r.pos == len(raw) {
			return out, nil
		}
	}
	tree, err := Decode(raw)
	if err != nil {
		return dst, err
	}
	b, err := Marshal(tree)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// maxDepth bounds the fast path's recursion; encoding/json allows 10000.
const maxDepth = 1000

// member locates one object member in the output buffer while its object is
// read: the decoded key at [k0, k1), the canonical value at [v0, v1).
type member struct{ k0, k1, v0, v1 int }

func (r *Recoder) ws() {
	for r.pos < len(r.in) {
		switch r.in[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// value appends the canonical form of the value at r.pos; false sends the
// whole input to the slow path.
func (r *Recoder) value(dst []byte) ([]byte, bool) {
	r.ws()
	if r.pos >= len(r.in) {
		return nil, false
	}
	switch c := r.in[r.pos]; {
	case c == '{':
		return r.object(dst)
	case c == '[':
		return r.array(dst)
	case c == '"':
		s, ok := r.str()
		return AppendString(dst, s), ok
	case c == '-' || c >= '0' && c <= '9':
		return r.number(dst)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(r.in[r.pos:], []byte(lit)) {
			r.pos += len(lit)
			return append(dst, lit...), true
		}
	}
	return nil, false
}

func (r *Recoder) object(dst []byte) ([]byte, bool) {
	if r.depth++; r.depth > maxDepth {
		return nil, false
	}
	r.pos++
	// Members are written past base as key and value, then sorted, written
	// again in order and moved down over the scratch: no buffer per object.
	base, first := len(dst), len(r.members)
	if r.ws(); r.pos < len(r.in) && r.in[r.pos] == '}' {
		r.pos++
		r.depth--
		return append(dst, "{}"...), true
	}
	for {
		if r.ws(); r.pos >= len(r.in) || r.in[r.pos] != '"' {
			return nil, false
		}
		k, ok := r.str()
		if !ok {
			return nil, false
		}
		m := member{k0: len(dst)}
		dst = append(dst, k...)
		m.k1 = len(dst)
		if r.ws(); r.pos >= len(r.in) || r.in[r.pos] != ':' {
			return nil, false
		}
		r.pos++
		m.v0 = len(dst)
		if dst, ok = r.value(dst); !ok {
			return nil, false
		}
		m.v1 = len(dst)
		r.members = append(r.members, m)
		if !r.next('}') {
			return nil, false
		}
		if r.in[r.pos-1] == '}' {
			break
		}
	}
	ms := r.members[first:]
	key := func(m member) []byte { return dst[m.k0:m.k1] }
	// Byte order of UTF-8 is code point order, as in encode.
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(key(a), key(b)) })
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(key(ms[i-1]), key(ms[i])) {
			return nil, false
		}
	}
	scratch := len(dst)
	dst = append(dst, '{')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		// The sources lie before scratch, which appending never overwrites.
		dst = append(AppendString(dst, dst[m.k0:m.k1]), ':')
		dst = append(dst, dst[m.v0:m.v1]...)
	}
	dst = append(dst, '}')
	dst = dst[:base+copy(dst[base:], dst[scratch:])]
	r.members = r.members[:first]
	r.depth--
	return dst, true
}

func (r *Recoder) array(dst []byte) ([]byte, bool) {
	if r.depth++; r.depth > maxDepth {
		return nil, false
	}
	r.pos++
	dst = append(dst, '[')
	if r.ws(); r.pos < len(r.in) && r.in[r.pos] == ']' {
		r.pos++
		r.depth--
		return append(dst, ']'), true
	}
	for i := 0; ; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = r.value(dst); !ok || !r.next(']') {
			return nil, false
		}
		if r.in[r.pos-1] == ']' {
			break
		}
	}
	r.depth--
	return append(dst, ']'), true
}

// next steps over the ',' or the closing byte that must follow a member or
// an element.
func (r *Recoder) next(closing byte) bool {
	r.ws()
	if r.pos < len(r.in) && (r.in[r.pos] == ',' || r.in[r.pos] == closing) {
		r.pos++
		return true
	}
	return false
}
