// Package i18ntest checks a package's message catalogs against its code:
// every language holds every message the code names, and nothing else.
package i18ntest

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

	"github.com/pactboard/pact/core/i18n"
)

// CodeIDs reads the non-test Go files of dir and returns the values of
// every constant declared with type typeName (e.g. msgID), sorted: the
// message ids the code names, found without anyone listing them.
func CodeIDs(t testing.TB, dir, typeName string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
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
			if !ok || vs.Type == nil {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typeName {
				return true
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				require.True(t, ok, "%s constants are string literals (%s)", typeName, f)
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

// RequireComplete fails unless cat has a file for every language the board
// speaks (i18n.Languages) and each holds exactly the message ids of the
// code in dir (constants of type typeName).
func RequireComplete(t testing.TB, cat *i18n.Catalog, dir, typeName string) {
	t.Helper()
	code := CodeIDs(t, dir, typeName)
	require.NotEmpty(t, code, "no %s constants in %s", typeName, dir)
	require.Equal(t, i18n.Languages(), cat.Langs(), "a catalog file per language the board speaks")
	for _, lang := range cat.Langs() {
		require.Equal(t, code, cat.IDs(lang), "catalog %s against the code's %s constants", lang, typeName)
	}
}
