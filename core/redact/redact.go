// Package redact removes secrets from text and structured values before the
// board stores anything: log payloads, tasks' text, notes, messages,
// notification text.
package redact

import (
	"sort"
	"strings"
)

// Mark replaces every secret.
const Mark = "[REDACTED]"

// Text returns s with every secret the rules recognise replaced by Mark.
// Every rule reads s as given; the secrets they find are merged where they
// overlap or touch, and each merged stretch becomes one Mark.
func Text(s string) string {
	if s == "" {
		return s
	}
	var found []span
	for _, r := range rules {
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			if start, end := m[2*r.secret], m[2*r.secret+1]; start >= 0 && end > start {
				found = append(found, span{start, end})
			}
		}
	}
	found = append(found, namedSecrets(s)...)
	if len(found) == 0 {
		return s
	}
	sort.Slice(found, func(i, j int) bool { return found[i].start < found[j].start })
	var b strings.Builder
	b.Grow(len(s))
	at := 0 // s[:at] is written
	for i := 0; i < len(found); {
		start, end := found[i].start, found[i].end
		for i++; i < len(found) && found[i].start <= end; i++ {
			end = max(end, found[i].end)
		}
		b.WriteString(s[at:start])
		b.WriteString(Mark)
		at = end
	}
	b.WriteString(s[at:])
	return b.String()
}

// namedSecrets finds the values of namedRules. Each value is matched within
// valueWindow bytes of its name; one that fills the window runs on to the
// next whitespace, found once per run, so the whole costs linear time.
func namedSecrets(s string) []span {
	var found []span
	runStart, runEnd := -1, -1 // the last whitespace-free run scanned to its end
	for _, r := range namedRules {
		for _, c := range r.context.FindAllStringIndex(s, -1) {
			at := c[1]
			end := r.value.FindStringIndex(s[at:min(len(s), at+valueWindow)])
			if end == nil || end[1] == 0 {
				continue
			}
			stop := at + end[1]
			if stop == at+valueWindow {
				if at < runStart || at >= runEnd {
					runStart, runEnd = at, len(s)
					if i := strings.IndexAny(s[at:], " \t\n\r\f"); i >= 0 {
						runEnd = at + i
					}
				}
				stop = max(stop, runEnd)
			}
			found = append(found, span{at, stop})
		}
	}
	return found
}

// span is a secret's place in a text: s[start:end].
type span struct{ start, end int }

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
