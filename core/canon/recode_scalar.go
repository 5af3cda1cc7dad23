package canon

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// str reads the string at r.pos and returns it decoded; the bytes are valid
// until the next call.
func (r *Recoder) str() ([]byte, bool) {
	r.pos++
	start := r.pos
	for r.pos < len(r.in) {
		switch c := r.in[r.pos]; {
		case c == '"':
			r.pos++
			s := r.in[start : r.pos-1]
			return s, utf8.Valid(s)
		case c == '\\':
			return r.escaped(append(r.tmp[:0], r.in[start:r.pos]...))
		case c < 0x20:
			return nil, false
		}
		r.pos++
	}
	return nil, false
}

// escaped goes on reading a string that has escapes, decoding into out.
func (r *Recoder) escaped(out []byte) ([]byte, bool) {
	for r.pos < len(r.in) {
		c := r.in[r.pos]
		switch {
		case c == '"':
			r.pos++
			r.tmp = out[:0] // keep the grown buffer
			return out, utf8.Valid(out)
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			r.pos++
			continue
		}
		if r.pos+1 >= len(r.in) {
			return nil, false
		}
		e := r.in[r.pos+1]
		r.pos += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if r.pos+4 > len(r.in) {
				return nil, false
			}
			var x rune
			for _, h := range r.in[r.pos : r.pos+4] {
				d := unhex(h)
				if d < 0 {
					return nil, false
				}
				x = x<<4 | d
			}
			if utf16.IsSurrogate(x) {
				return nil, false // pairs and lone halves: encoding/json decides
			}
			out = utf8.AppendRune(out, x)
			r.pos += 4
		default:
			return nil, false
		}
	}
	return nil, false
}

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// number reads a number in JSON's grammar. An integer is already canonical
// (JSON allows no leading zeros or '+'), except -0; the rest goes through
// canonicalNumber, as in encode.
func (r *Recoder) number(dst []byte) ([]byte, bool) {
	start := r.pos
	digits := func() bool {
		n := r.pos
		for r.pos < len(r.in) && r.in[r.pos] >= '0' && r.in[r.pos] <= '9' {
			r.pos++
		}
		return r.pos > n
	}
	if r.in[r.pos] == '-' {
		r.pos++
	}
	if r.pos < len(r.in) && r.in[r.pos] == '0' {
		r.pos++
	} else if !digits() {
		return nil, false
	}
	integral := true
	if r.pos < len(r.in) && r.in[r.pos] == '.' {
		r.pos++
		if integral = false; !digits() {
			return nil, false
		}
	}
	if r.pos < len(r.in) && (r.in[r.pos] == 'e' || r.in[r.pos] == 'E') {
		r.pos++
		if r.pos < len(r.in) && (r.in[r.pos] == '+' || r.in[r.pos] == '-') {
			r.pos++
		}
		if integral = false; !digits() {
			return nil, false
		}
	}
	lit := r.in[start:r.pos]
	if integral {
		if string(lit) == "-0" {
			return append(dst, '0'), true
		}
		return append(dst, lit...), true
	}
	s, err := canonicalNumber(json.Number(lit))
	if err != nil {
		return nil, false
	}
	return append(dst, s...), true
}
