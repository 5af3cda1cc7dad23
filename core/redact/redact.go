// Package redact removes secrets from text and structured values before the
// board stores anything: log payloads, notes, messages, notification text.
package redact

import (
	"regexp"
	"strings"
)

// Mark replaces every secret.
const Mark = "[REDACTED]"

type rule struct {
	re   *regexp.Regexp
	repl string
}

// rules are applied in order; each is a lookup table, never written after
// start-up.
var rules = []rule{
	{regexp.MustCompile(`(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----`), Mark},
	{regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}`), Mark},                          // Anthropic, OpenAI
	{regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`), Mark},                      // GitHub tokens
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`), Mark},                                  // GitHub fine-grained
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), Mark},                                   // AWS access key ids
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), Mark},                                  // Slack tokens
	{regexp.MustCompile(`\bpact_[A-Za-z0-9_-]{20,}`), Mark},                                       // PACT agent tokens
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), Mark}, // JWTs
	{regexp.MustCompile(`(?i)(\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*`), "${1}" + Mark},
	{regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@`), "${1}" + Mark + "@"}, // URL passwords
	{regexp.MustCompile(`(?i)(\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|token)\b\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)`), "${1}" + Mark},
}

var secretKey = regexp.MustCompile(`(?i)^(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|token|authorization|private[_-]?key)$`)

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
