// Package envfile reads the env files pact-connect writes (KEY=value
// lines, sh-quoted; docs/pact-connect.md), for the commands that run from
// one: pact-runner and pact-channel.
package envfile

import (
	"fmt"
	"os"
	"strings"
)

// Read reads the env file at path: KEY=value assignments, one per line,
// "export " allowed, blank lines and # comments skipped, values quoted as
// sh quotes them.
func Read(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, err := Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Parse reads KEY=value assignments with sh's quoting, which is how
// pact-connect writes them (single quotes, '"'"' for a quote inside; a
// value in quotes may span lines): single quotes keep everything, double
// quotes keep everything but \" \\ \$ and \`, a bare backslash escapes
// the next character.
func Parse(text string) (map[string]string, error) {
	out := map[string]string{}
	line := 1
	for i := 0; i < len(text); {
		// Skip blank space and comments between assignments.
		switch c := text[i]; {
		case c == '\n':
			line++
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		}
		rest := strings.TrimPrefix(text[i:], "export ")
		i = len(text) - len(rest)
		eq := strings.IndexByte(rest, '=')
		nl := strings.IndexByte(rest, '\n')
		if eq <= 0 || (nl >= 0 && nl < eq) || !validKey(rest[:eq]) {
			return nil, fmt.Errorf("line %d: not a KEY=value line", line)
		}
		key := rest[:eq]
		i += eq + 1
		var v strings.Builder
		for i < len(text) && text[i] != '\n' && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' {
			switch c := text[i]; c {
			case '\'':
				end := strings.IndexByte(text[i+1:], '\'')
				if end < 0 {
					return nil, fmt.Errorf("line %d: %s has an unclosed quote", line, key)
				}
				v.WriteString(text[i+1 : i+1+end])
				line += strings.Count(text[i+1:i+1+end], "\n")
				i += end + 2
			case '"':
				i++
				for ; i < len(text) && text[i] != '"'; i++ {
					if text[i] == '\\' && i+1 < len(text) && strings.IndexByte("\"\\$`", text[i+1]) >= 0 {
						i++
					}
					if text[i] == '\n' {
						line++
					}
					v.WriteByte(text[i])
				}
				if i >= len(text) {
					return nil, fmt.Errorf("line %d: %s has an unclosed quote", line, key)
				}
				i++
			case '\\':
				if i+1 < len(text) {
					i++
				}
				v.WriteByte(text[i])
				i++
			default:
				v.WriteByte(c)
				i++
			}
		}
		// Anything after the value on its line must be a comment.
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
			i++
		}
		if i < len(text) && text[i] != '\n' && text[i] != '#' {
			return nil, fmt.Errorf("line %d: %s: unexpected text after the value", line, key)
		}
		out[key] = v.String()
	}
	return out, nil
}

func validKey(k string) bool {
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}
