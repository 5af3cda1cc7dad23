package canon

import (
	"bytes"
	"unicode/utf8"
)

func writeString(b *bytes.Buffer, s string) {
	b.Write(AppendString(b.AvailableBuffer(), s))
}

// AppendString appends the canonical JSON of the string s to dst. It is the
// one string encoder: Marshal uses it, and so do the encoders that write
// hashed bytes straight from a database row (S = []byte) without a string
// per field.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	done := 0 // s[:done] is written
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			// string() of at most four bytes stays on the stack.
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if r == utf8.RuneError && size == 1 {
				// Invalid UTF-8 becomes U+FFFD, as encoding/json does.
				dst = utf8.AppendRune(append(dst, s[done:i]...), utf8.RuneError)
				done = i + 1
			}
			i += size
			continue
		}
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c == '\b':
			esc = `\b`
		case c == '\f':
			esc = `\f`
		case c < 0x20:
			dst = append(append(dst, s[done:i]...), '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i++
			done = i
			continue
		default:
			i++
			continue
		}
		dst = append(append(dst, s[done:i]...), esc...)
		i++
		done = i
	}
	dst = append(dst, s[done:]...)
	return append(dst, '"')
}
