package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tableRef is one place in Go code where SQL names a table.
type tableRef struct {
	pkg   string // repository-relative package directory, "modules/people"
	table string
	kind  access
	at    string // "modules/people/store.go:42"
}

// sqlText is a string the code builds: one literal, or a concatenation of
// literals and other expressions (each standing as "?"). segs map byte
// offsets of text back to the literals, for line numbers.
type sqlText struct {
	text string
	segs []litSpan
}

type litSpan struct {
	off  int            // where the literal's value starts in text
	pos  token.Position // where the literal starts in its file
	raw  bool           // a `raw` literal: its newlines are the file's
	body string
}

// line returns the file line of byte off of s.
func (s sqlText) line(off int) int {
	seg := s.segs[0]
	for _, g := range s.segs {
		if g.off <= off {
			seg = g
		}
	}
	n := seg.pos.Line
	if seg.raw {
		n += strings.Count(seg.body[:min(len(seg.body), max(0, off-seg.off))], "\n")
	}
	return n
}

// stringsOf returns every string the file spells out: each string literal,
// with a chain of + joined into one text so "UPDATE x SET " + set + " WHERE"
// reads as one statement.
func stringsOf(fset *token.FileSet, f *ast.File) []sqlText {
	var out []sqlText
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if x.Op != token.ADD {
				return true
			}
			var t sqlText
			var others []ast.Expr
			var walk func(e ast.Expr)
			walk = func(e ast.Expr) {
				if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD {
					walk(b.X)
					walk(b.Y)
					return
				}
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if v, err := strconv.Unquote(lit.Value); err == nil {
						t.segs = append(t.segs, litSpan{len(t.text), fset.Position(lit.Pos()), lit.Value[0] == '`', v})
						t.text += v
						return
					}
				}
				t.text += " ? "
				others = append(others, e)
			}
			walk(x)
			if len(t.segs) > 0 {
				out = append(out, t)
			}
			for _, e := range others {
				ast.Inspect(e, visit)
			}
			return false
		case *ast.BasicLit:
			if x.Kind == token.STRING {
				if v, err := strconv.Unquote(x.Value); err == nil {
					out = append(out, sqlText{v, []litSpan{{0, fset.Position(x.Pos()), x.Value[0] == '`', v}}})
				}
			}
		}
		return true
	}
	ast.Inspect(f, visit)
	return out
}

// builderRefs finds bun query builders that name a table in Go rather than
// SQL: db.NewSelect().Table("t") reads t, NewInsert/NewUpdate/NewDelete
// write it. A builder given a Model and no table name cannot be attributed
// without type information; it is reported with table "?" so the checker
// fails on it rather than miss a write.
func builderRefs(fset *token.FileSet, f *ast.File, population map[string]bool) []tableRef {
	var out []tableRef
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		switch sel.Sel.Name {
		case "Table", "TableExpr", "ModelTableExpr", "Model":
		default:
			return true
		}
		root := builderRoot(sel.X)
		if root == "" {
			return true
		}
		kind := writes
		if root == "NewSelect" {
			kind = reads
		}
		at := strconv.Itoa(fset.Position(call.Pos()).Line) // the caller prefixes the file
		if sel.Sel.Name == "Model" {
			if !chainNames(sel.X) {
				out = append(out, tableRef{table: "?", kind: kind, at: at})
			}
			return true
		}
		for _, a := range call.Args {
			if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				v, _ := strconv.Unquote(lit.Value)
				name, _, _ := strings.Cut(strings.TrimSpace(v), " ")
				name = strings.TrimPrefix(strings.ToLower(strings.Trim(name, `"`)), "public.")
				if population[name] {
					out = append(out, tableRef{table: name, kind: kind, at: at})
				}
			}
		}
		return true
	})
	return out
}

// builderRoot returns the bun constructor a method chain starts from
// ("NewSelect", …), or "".
func builderRoot(e ast.Expr) string {
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return ""
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return ""
		}
		switch sel.Sel.Name {
		case "NewSelect", "NewInsert", "NewUpdate", "NewDelete", "NewMerge", "NewTruncateTable":
			return sel.Sel.Name
		}
		e = sel.X
	}
}

// chainNames reports whether the chain below e already names its table.
func chainNames(e ast.Expr) bool {
	for {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if n := sel.Sel.Name; n == "Table" || n == "TableExpr" || n == "ModelTableExpr" {
			return true
		}
		e = sel.X
	}
}

// eachGoFile parses every non-test Go file under root's dirs
// (repository-relative; testdata, node_modules and hidden directories
// skipped) and hands it to fn with its repository-relative path.
func eachGoFile(t *testing.T, root string, fn func(fset *token.FileSet, f *ast.File, rel string), dirs ...string) {
	t.Helper()
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			fn(fset, f, filepath.ToSlash(rel))
			return nil
		})
		require.NoError(t, err)
	}
}

// scanCode returns every table reference in the non-test Go files under
// root's dirs (repository-relative), attributed to the package directory
// holding the file.
func scanCode(t *testing.T, root string, population map[string]bool, dirs ...string) []tableRef {
	t.Helper()
	var out []tableRef
	eachGoFile(t, root, func(fset *token.FileSet, f *ast.File, rel string) {
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, s := range stringsOf(fset, f) {
			for _, u := range tableUses(s.text, population) {
				out = append(out, tableRef{pkg, u.table, u.kind, fmt.Sprintf("%s:%d", rel, s.line(u.off))})
			}
		}
		for _, r := range builderRefs(fset, f, population) {
			r.pkg, r.at = pkg, rel+":"+r.at
			out = append(out, r)
		}
	}, dirs...)
	return out
}
