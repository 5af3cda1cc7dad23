package kernel

import (
	"fmt"
	"strings"

	"github.com/danielgtaylor/huma/v2"

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

// nulFreeJSON is f refusing a request body that decodes to a value holding
// U+0000 (withoutNUL). huma decodes a body into a generic value to
// validate it before decoding it into the operation's input, so the check
// runs on that first decoding; its error is the body's 400.
func nulFreeJSON(f huma.Format) huma.Format {
	decode := f.Unmarshal
	f.Unmarshal = func(data []byte, v any) error {
		if err := decode(data, v); err != nil {
			return err
		}
		if generic, ok := v.(*any); ok {
			if path, found := nulAt(*generic, "body"); found {
				return fmt.Errorf("%s holds a NUL character (\\u0000), which the board cannot store: remove it", path)
			}
		}
		return nil
	}
	return f
}

// adminNUL refuses an Admin API request whose path or query holds U+0000
// (%00), as withoutNUL does a tool's arguments; nulFreeJSON checks the
// body.
func (k *Kernel) adminNUL(ctx huma.Context, next func(huma.Context)) {
	u := ctx.URL()
	if strings.IndexByte(u.Path, 0) >= 0 || strings.Contains(u.RawQuery, "%00") || strings.IndexByte(u.RawQuery, 0) >= 0 {
		k.writeAdminError(ctx, errs.E(errs.InvalidRequest, "the request's path or query holds a NUL character (%%00), which the board cannot store: remove it"))
		return
	}
	next(ctx)
}
