package mandate

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pactboard/pact/sdk/errs"
)

// Scope strings. A board scope is "<action>@project:<slug>", such as
// "task.work@project:web"; anything else ("doc.read:customer_a") is an opaque
// string matched as a whole. Action patterns: "*" matches every action and
// "a.*" matches "a" and everything under "a.".

// MaxScopeLen is the longest valid scope, in characters.
const MaxScopeLen = 200

const projectMarker = "@project:"

// BoardScope returns the board scope granting action on project.
func BoardScope(action, project string) string {
	return action + projectMarker + project
}

// ParseBoardScope splits a board scope into its action and project. ok is
// false for an opaque scope: the action must be non-empty with no '@' and no
// whitespace, and the project must match [a-z0-9][a-z0-9-]*.
func ParseBoardScope(s string) (action, project string, ok bool) {
	at := strings.IndexByte(s, '@')
	if at <= 0 || !strings.HasPrefix(s[at:], projectMarker) {
		return "", "", false
	}
	action, project = s[:at], s[at+len(projectMarker):]
	if strings.IndexFunc(action, isSpace) >= 0 || !validSlug(project) {
		return "", "", false
	}
	return action, project, true
}

func validSlug(p string) bool {
	if p == "" {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0:
		default:
			return false
		}
	}
	return true
}

// isSpace is Python's str.isspace, which the original scope rules used: Go's
// Unicode white space plus the four ASCII separators U+001C..U+001F.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// ValidScope checks a scope a person or agent asks to grant: 1 to 200
// characters and no whitespace. It returns InvalidRequest "invalid scope: s".
func ValidScope(s string) error {
	if n := utf8.RuneCountInString(s); n == 0 || n > MaxScopeLen || strings.IndexFunc(s, isSpace) >= 0 {
		return errs.E(errs.InvalidRequest, "invalid scope: %s", s)
	}
	return nil
}

// ValidScopes checks a scope list to issue: it returns InvalidRequest
// "scope is empty" for no items, else "invalid scope: a, b" naming every
// invalid item.
func ValidScopes(scope []string) error {
	if len(scope) == 0 {
		return errs.E(errs.InvalidRequest, "scope is empty")
	}
	var bad []string
	for _, s := range scope {
		if ValidScope(s) != nil {
			bad = append(bad, s)
		}
	}
	if len(bad) > 0 {
		return errs.E(errs.InvalidRequest, "invalid scope: %s", strings.Join(bad, ", "))
	}
	return nil
}

// ActionCovers reports whether the action pattern granted covers the action
// needed: "*" covers everything, "a.*" covers "a" and "a.<anything>", and any
// other pattern covers only itself.
func ActionCovers(granted, needed string) bool {
	if granted == "*" || granted == needed {
		return true
	}
	if prefix, ok := strings.CutSuffix(granted, ".*"); ok {
		return needed == prefix || strings.HasPrefix(needed, prefix+".")
	}
	return false
}

// CoveringPatterns lists every action pattern that covers action
// (ActionCovers), so a query can find the patterns that cover an action with
// = ANY instead of reading them all.
func CoveringPatterns(action string) []string {
	out := []string{"*", action, action + ".*"}
	for i, c := range action {
		if c == '.' {
			out = append(out, action[:i]+".*")
		}
	}
	return out
}

// ScopeCovers reports whether the scope granted covers the scope needed. Two
// board scopes must name the same project and the granted action must cover
// the needed one; a board scope never covers an opaque one nor the other way
// round; two opaque scopes compare as action patterns.
func ScopeCovers(granted, needed string) bool {
	ga, gp, gok := ParseBoardScope(granted)
	na, np, nok := ParseBoardScope(needed)
	switch {
	case gok && nok:
		return gp == np && ActionCovers(ga, na)
	case gok || nok:
		return false
	default:
		return ActionCovers(granted, needed)
	}
}

// AnyCovers reports whether any scope in granted covers needed.
func AnyCovers(granted []string, needed string) bool {
	for _, g := range granted {
		if ScopeCovers(g, needed) {
			return true
		}
	}
	return false
}

// Uncovered returns the items of child that no item of parent covers, in
// child's order; an empty result means child is within parent.
func Uncovered(child, parent []string) []string {
	var out []string
	for _, c := range child {
		if !AnyCovers(parent, c) {
			out = append(out, c)
		}
	}
	return out
}
