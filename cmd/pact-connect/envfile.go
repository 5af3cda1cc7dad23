package main

import (
	"regexp"
	"strings"
)

// setting is one variable of an env file.
type setting struct{ key, value string }

var (
	bare    = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)
	envLine = regexp.MustCompile(`^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=`)
)

// shellQuote quotes v for sh, which sources the env files (the hook script
// and pact-runner's launcher): bare when safe, else in single quotes.
func shellQuote(v string) string {
	if bare.MatchString(v) {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'"'"'`) + "'"
}

// mergeEnv sets vars in the env file text old: a variable's first line is
// replaced and its later ones dropped; every other line (comments, other
// variables such as PACT_AUTO_CLAIM) is kept; variables not there yet are
// appended in order. header starts a new file.
func mergeEnv(old string, vars []setting, header string) string {
	want := map[string]string{}
	for _, s := range vars {
		want[s.key] = s.key + "=" + shellQuote(s.value)
	}
	var out []string
	if strings.TrimSpace(old) == "" {
		out = append(out, header)
	}
	done := map[string]bool{}
	for _, line := range logicalLines(old) {
		m := envLine.FindStringSubmatch(line)
		if m == nil || want[m[1]] == "" {
			out = append(out, line)
			continue
		}
		if !done[m[1]] {
			out = append(out, want[m[1]])
			done[m[1]] = true
		}
	}
	for _, s := range vars {
		if !done[s.key] {
			out = append(out, want[s.key])
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// logicalLines splits sh text into lines, keeping a quoted value that
// spans lines in one.
func logicalLines(text string) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	var out []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n' && quote == 0:
			out = append(out, cur.String())
			cur.Reset()
			continue
		case quote == 0 && c == '#' && cur.Len() == 0 || quote == 0 && c == '#' && isSpace(text[i-1]):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			cur.WriteString(text[i : i+j])
			i += j - 1
			continue
		case c == '\\' && quote != '\'' && i+1 < len(text):
			cur.WriteByte(c)
			i++
			c = text[i]
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		}
		cur.WriteByte(c)
	}
	return append(out, cur.String())
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }
