package archtest

import (
	"strings"
)

// access is what a piece of SQL does to a table.
type access string

const (
	reads  access = "reads"
	writes access = "writes"
)

// sqlToken is one token of a SQL text: a name (lower-cased, with any
// schema qualifier kept as "schema.name"), or one punctuation character.
// String literals and comments are dropped, so words inside them never
// count. off is the token's byte offset in the text.
type sqlToken struct {
	text string
	name bool
	off  int
}

// lexSQL splits sql into tokens. It knows PostgreSQL's comments ("--",
// nested "/* */"), quoted strings ('…', E'…', $tag$…$tag$) and quoted
// identifiers; everything else is a word or a single character.
func lexSQL(sql string) []sqlToken {
	var out []sqlToken
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			depth := 0
			for i < len(sql) {
				if strings.HasPrefix(sql[i:], "/*") {
					depth, i = depth+1, i+2
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth, i = depth-1, i+2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c == '\'':
			i = skipQuoted(sql, i, '\'')
		case c == '$' && dollarTag(sql[i:]) != "":
			tag := dollarTag(sql[i:])
			end := strings.Index(sql[i+len(tag):], tag)
			if end < 0 {
				i = len(sql)
			} else {
				i += len(tag) + end + len(tag)
			}
		case c == '"' || isWordStart(c):
			start := i
			var parts []string
			for {
				var part string
				if i < len(sql) && sql[i] == '"' {
					j := skipQuoted(sql, i, '"')
					part = strings.ReplaceAll(sql[i+1:max(i+1, j-1)], `""`, `"`)
					i = j
				} else {
					j := i
					for j < len(sql) && isWordChar(sql[j]) {
						j++
					}
					part = strings.ToLower(sql[i:j])
					i = j
				}
				parts = append(parts, part)
				// A qualified name: schema.table, alias.column.
				if i+1 < len(sql) && sql[i] == '.' && (sql[i+1] == '"' || isWordStart(sql[i+1])) {
					i++
					continue
				}
				break
			}
			out = append(out, sqlToken{text: strings.Join(parts, "."), name: true, off: start})
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		default:
			out = append(out, sqlToken{text: string(c), off: i})
			i++
		}
	}
	return out
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isWordChar(c byte) bool { return isWordStart(c) || (c >= '0' && c <= '9') || c == '$' }

// skipQuoted returns the index just after the quoted run starting at i; a
// doubled quote is an escaped one.
func skipQuoted(s string, i int, q byte) int {
	for i++; i < len(s); i++ {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

// dollarTag returns the $tag$ opening s, or "" ($1 is a parameter).
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		switch {
		case s[j] == '$':
			return s[:j+1]
		case !isWordStart(s[j]) && !(j > 1 && s[j] >= '0' && s[j] <= '9'):
			return ""
		}
	}
	return ""
}

// tableUse is one table a SQL text names, with the byte offset of the name.
type tableUse struct {
	table string
	kind  access
	off   int
}

// notAlias reports whether w, following a table in a FROM list, is a
// keyword rather than the table's alias.
func notAlias(w string) bool {
	switch w {
	case "where", "join", "left", "right", "inner", "full", "cross", "natural", "on", "using", "group", "order",
		"limit", "offset", "having", "window", "union", "except", "intersect", "for", "returning", "set",
		"lateral", "tablesample", "fetch", "select", "and", "or", "then", "else", "end", "when", "as", "into",
		"values", "do", "with", "from":
		return true
	}
	return false
}

// tableUses finds the tables of population that sql writes (INSERT INTO,
// UPDATE, DELETE FROM, TRUNCATE, MERGE INTO, LOCK) and reads (FROM lists,
// JOIN, DELETE … USING). Only names in population count, so a column or a
// function that happens to follow FROM is ignored unless a table bears its
// name; "public." is the only qualifier that still names our table.
func tableUses(sql string, population map[string]bool) []tableUse {
	toks := lexSQL(sql)
	var out []tableUse
	is := func(i int, words ...string) bool {
		if i < 0 || i >= len(toks) {
			return false
		}
		for _, w := range words {
			if toks[i].text == w {
				return true
			}
		}
		return false
	}
	// table records toks[i] if it is one of ours; it reports whether toks[i]
	// was a name. In a read, a name before "(" is a function (unnest(…));
	// in a write it is the table before its column list.
	table := func(i int, kind access) bool {
		if i >= len(toks) || !toks[i].name || (kind == reads && is(i+1, "(")) {
			return false
		}
		name := strings.TrimPrefix(toks[i].text, "public.")
		if population[name] {
			out = append(out, tableUse{name, kind, toks[i].off})
		}
		return true
	}
	skipParens := func(i int) int { // i at "(": returns the index after its ")"
		for depth := 0; i < len(toks); i++ {
			switch toks[i].text {
			case "(":
				depth++
			case ")":
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	// list reads a FROM or USING list from i: items, each a table, a
	// function call or a parenthesised subquery, with an optional alias.
	list := func(i int) {
		for i < len(toks) {
			for is(i, "only", "lateral") {
				i++
			}
			switch {
			case is(i, "("):
				i = skipParens(i)
			case i < len(toks) && toks[i].name:
				table(i, reads)
				i++
				if is(i, "(") { // a function: unnest(…), generate_series(…)
					i = skipParens(i)
				}
			default:
				return
			}
			if is(i, "as") {
				i++
			}
			if i < len(toks) && toks[i].name && !notAlias(toks[i].text) {
				i++
			}
			if is(i, "(") { // column aliases
				i = skipParens(i)
			}
			if !is(i, ",") {
				return
			}
			i++
		}
	}
	// opener[d] is the word before the d-th open parenthesis: FROM inside
	// extract(… FROM …) or substring(… FROM …) is no FROM list.
	var opener []string
	for i := 0; i < len(toks); i++ {
		switch toks[i].text {
		case "(":
			w := ""
			if i > 0 && toks[i-1].name {
				w = toks[i-1].text
			}
			opener = append(opener, w)
		case ")":
			if len(opener) > 0 {
				opener = opener[:len(opener)-1]
			}
		case "insert", "merge":
			if is(i+1, "into") {
				table(i+2, writes)
			}
		case "update":
			if !is(i-1, "for", "do", "key", "no") {
				j := i + 1
				if is(j, "only") {
					j++
				}
				table(j, writes)
			}
		case "delete":
			if is(i+1, "from") {
				j := i + 2
				if is(j, "only") {
					j++
				}
				table(j, writes)
				i++ // the FROM is consumed
			}
		case "truncate", "lock":
			j := i + 1
			for is(j, "table", "only") {
				j++
			}
			for table(j, writes) && is(j+1, ",") {
				j += 2
			}
		case "from":
			if len(opener) > 0 && inFunction(opener[len(opener)-1]) || is(i-1, "distinct") {
				continue
			}
			list(i + 1)
		case "join":
			j := i + 1
			for is(j, "only", "lateral") {
				j++
			}
			table(j, reads)
		case "using":
			if !is(i+1, "(") {
				list(i + 1)
			}
		}
	}
	return out
}

// inFunction reports whether FROM inside a call of fn is part of the call's
// syntax rather than a FROM list.
func inFunction(fn string) bool {
	switch fn {
	case "extract", "substring", "trim", "overlay", "position":
		return true
	}
	return false
}
