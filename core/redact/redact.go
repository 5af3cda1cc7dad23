// Package redact removes secrets from text and structured values before the
// board stores anything: log payloads, tasks' text, notes, messages,
// notification text.
package redact

import (
	"cmp"
	"slices"
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
	found := append(secretsOf(s, rules), namedSecrets(s)...)
	if len(found) == 0 {
		return s
	}
	slices.SortFunc(found, func(a, b span) int { return cmp.Compare(a.start, b.start) })
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

// secretsOf finds what each of rs calls a secret in s. A secret group that
// took part in no match, or matched nothing, is no secret: an empty one
// would put a Mark where the text had nothing.
func secretsOf(s string, rs []rule) []span {
	var found []span
	for _, r := range rs {
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			if start, end := m[2*r.secret], m[2*r.secret+1]; start >= 0 && end > start {
				found = append(found, span{start, end})
			}
		}
	}
	return found
}

// namedSecrets finds the values of namedRules. Each value is matched within
// valueWindow bytes of its name; one that fills the window runs on to the
// next whitespace after the name, found by a search of the text's
// whitespace, listed once, so the whole costs n log n however many names
// share one long run.
func namedSecrets(s string) []span {
	var found []span
	var runEnds []int // where each whitespace-free run of s ends; listed when first needed
	for _, r := range namedRules {
		for _, c := range r.context.FindAllStringIndex(s, -1) {
			at := c[1]
			end := r.value.FindStringIndex(s[at:min(len(s), at+valueWindow)])
			if end == nil || end[1] == 0 {
				continue
			}
			stop := at + end[1]
			if stop == at+valueWindow {
				if runEnds == nil {
					runEnds = whitespaceOf(s)
				}
				stop = max(stop, runEnds[sort.SearchInts(runEnds, at)])
			}
			found = append(found, span{at, stop})
		}
	}
	return found
}

// whitespaceOf lists where s has whitespace, and len(s) last: the end of
// the run that holds any offset i is the first entry at or after i.
func whitespaceOf(s string) []int {
	ends := []int{}
	for i, c := range []byte(s) {
		if strings.IndexByte(" \t\n\r\f", c) >= 0 {
			ends = append(ends, i)
		}
	}
	return append(ends, len(s))
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
