// Package redact removes secrets from text and structured values before the
// board stores anything: log payloads, notes, messages, notification text.
package redact

import "strings"

// Mark replaces every secret.
const Mark = "[REDACTED]"

// Text returns s with every secret the rules recognise replaced by Mark.
func Text(s string) string {
	if s == "" {
		return s
	}
	for _, r := range rules {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}

// Value redacts a decoded JSON value: strings through Text, the values of
// keys that name a secret (password, token, authorization, …) replaced
// whole, everything else recursed into. It returns a new value and leaves v
// untouched.
func Value(v any) any {
	switch x := v.(type) {
	case string:
		return Text(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Value(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Text(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil && secretKey.MatchString(strings.TrimSpace(k)) {
				out[k] = Mark
				continue
			}
			out[k] = Value(e)
		}
		return out
	}
	return v
}
