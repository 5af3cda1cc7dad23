package kernel

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/sdk/errs"
)

// withoutNUL refuses arguments (decoded JSON) holding U+0000 in any string,
// key or value, at any depth. PostgreSQL's text and jsonb cannot hold it,
// so a tool would otherwise fail at its write as the board's own error
// (docs/errors.md, "invalid_request"); refused here, the call is the
// caller's mistake, said in words it can act on, and changes nothing.
func withoutNUL(v any) error { return RefuseNUL(v, "arguments") }

// RefuseNUL is withoutNUL for the doors that decode text themselves (a
// hook's session id, an A2A request's params, a setup code): v is decoded
// JSON or a string, at names it in the refusal.
func RefuseNUL(v any, at string) error {
	if path, ok := nulAt(v, at); ok {
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
// (%00), as withoutNUL does a tool's arguments, once adminMetrics has
// counted it (OBS-001); nulFreeJSON checks the body.
func (k *Kernel) adminNUL(ctx huma.Context, next func(huma.Context)) {
	if u := ctx.URL(); nulInURL(&u) {
		k.writeAdminError(ctx, errNULInURL())
		return
	}
	next(ctx)
}

// urlWithoutNUL refuses a request to a plain route (not the Admin API's,
// which adminNUL refuses) whose path or query holds U+0000: a route's
// wildcard reaches SQL as text.
func urlWithoutNUL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isAdminPath(r.URL.Path) && nulInURL(r.URL) {
			e, _ := errs.As(errNULInURL())
			WriteError(w, http.StatusBadRequest, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// nulInURL reports whether u's path or query holds U+0000, decoded or as
// %00.
func nulInURL(u *url.URL) bool {
	return strings.IndexByte(u.Path, 0) >= 0 || strings.Contains(u.RawQuery, "%00") || strings.IndexByte(u.RawQuery, 0) >= 0
}

func errNULInURL() error {
	return errs.E(errs.InvalidRequest, "the request's path or query holds a NUL character (%%00), which the board cannot store: remove it")
}

// isAdminPath reports whether path is under the Admin API's prefix.
func isAdminPath(path string) bool {
	return path == AdminPrefix || strings.HasPrefix(path, AdminPrefix+"/")
}
