package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// codeMessageIDs reads this package's source and returns every msgID
// constant's value, so a message added to the code is checked here without
// anyone listing it.
func codeMessageIDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var ids []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		file, err := parser.ParseFile(token.NewFileSet(), f, src, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil || fmtIdent(vs.Type) != "msgID" {
				return true
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				require.True(t, ok, "msgID constants are string literals")
				s, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				ids = append(ids, s)
			}
			return true
		})
	}
	slices.Sort(ids)
	return ids
}

func fmtIdent(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// Every catalog file holds the same messages, and they are exactly the
// code's msgID constants: a message the code names cannot be missing from
// a language, and no file keeps a message nobody uses.
func TestEveryMessageIsInEveryLanguage(t *testing.T) {
	cat, err := newCatalog()
	require.NoError(t, err)
	code := codeMessageIDs(t)
	require.NotEmpty(t, code)
	files, err := filepath.Glob("locales/active.*.json")
	require.NoError(t, err)
	require.Len(t, files, len(cat.ids), "every file is parsed")
	require.ElementsMatch(t, []string{"en", "th"}, keys(cat.ids))
	for lang, ids := range cat.ids {
		got := slices.Clone(ids)
		slices.Sort(got)
		require.Equal(t, code, got, "catalog %s against the code's msgID constants", lang)
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Every kind the board raises has its own headline, distinct in every
// language, and a kind this plugin does not know reads "Notification".
func TestEveryKindHasAHeadline(t *testing.T) {
	cat := mustCatalog()
	kinds := []string{"approval_needed", "deferred", "question", "task_closed", "awaiting_session", "brief", "expiring",
		"expired", "message", "pact_decision", "pact_unread", "pact_stuck"}
	for _, lang := range []string{"en", "th"} {
		seen := map[string]bool{}
		for _, k := range kinds {
			require.NotEqual(t, msgNoKind, headline(k), k)
			h := cat.text(lang, headline(k), nil)
			require.False(t, seen[h], "%s: %q twice", lang, h)
			seen[h] = true
		}
	}
	require.Equal(t, "Notification", cat.text("en", headline("something_new"), nil))
}
