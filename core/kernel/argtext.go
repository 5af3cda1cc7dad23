package kernel

import (
	"strings"

	"github.com/pactboard/pact/sdk/errs"
)

// withoutNUL refuses arguments (decoded JSON) holding U+0000 in any string,
// key or value, at any depth. PostgreSQL's text and jsonb cannot hold it,
// so a tool would otherwise fail at its write as the board's own error
// (docs/errors.md, "invalid_request"); refused here, the call is the
// caller's mistake, said in words it can act on, and changes nothing.
func withoutNUL(v any) error {
	if path, ok := nulAt(v, "arguments"); ok {
		return errs.E(errs.InvalidRequest, "%s holds a NUL character (\\u0000), which the board cannot store: remove it", path)
	}
	return nil
}

// nulAt finds a string holding U+0000 in v and names where it is.
func nulAt(v any, at string) (string, bool) {
	switch x := v.(type) {
	case string:
		return at, strings.IndexByte(x, 0) >= 0
	case []any:
		for _, e := range x {
			if p, ok := nulAt(e, at+"[]"); ok {
				return p, true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.IndexByte(k, 0) >= 0 {
				return "a key of " + at, true
			}
			if p, ok := nulAt(e, at+"."+k); ok {
				return p, true
			}
		}
	}
	return "", false
}
