package archtest

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A module's SQL lives in its store: the files named store*.go. Every other
// file of a module (its service, its adapters) calls the store. These rules
// read the code itself, so a new file cannot escape them
// (docs/architecture.md, "A service and a store per module").

// sqlVerbs are the words a statement starts with, written as this
// repository writes SQL: upper case. Prose ("Update the role first") is not
// upper case, so it is not mistaken for SQL.
var sqlVerbs = map[string]bool{"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true, "WITH": true,
	"LOCK": true, "TRUNCATE": true, "MERGE": true, "VALUES": true, "CALL": true}

// builderCalls are bun's query constructors: a call of one is SQL too.
var builderCalls = map[string]bool{"NewSelect": true, "NewInsert": true, "NewUpdate": true, "NewDelete": true,
	"NewMerge": true, "NewRaw": true, "NewTruncateTable": true, "NewValues": true}

// sqlSite is one statement (or builder) in a Go file.
type sqlSite struct {
	file string // repository-relative
	line int
	// text is the statement's literals, joined; "" for a builder call. An
	// operand the scanner cannot read (a column list, a condition, a
	// constant: " ? " in sqlText) shows no placeholder: a statement's
	// placeholders are those its literals spell.
	text string
}

// isStatement reports whether s, a string the code spells out, is a SQL
// statement: its first word is an upper-case verb followed by more.
func isStatement(s string) bool {
	f := strings.Fields(s)
	return len(f) > 1 && sqlVerbs[f[0]]
}

// sqlSitesIn returns the statements and builder calls of one parsed file.
func sqlSitesIn(fset *token.FileSet, f *ast.File, rel string) []sqlSite {
	var out []sqlSite
	for _, s := range stringsOf(fset, f) {
		if isStatement(s.text) {
			out = append(out, sqlSite{rel, s.line(0), s.literals()})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && builderCalls[sel.Sel.Name] {
				out = append(out, sqlSite{rel, fset.Position(call.Pos()).Line, ""})
			}
		}
		return true
	})
	return out
}

// literals is the text of s's literals alone, each apart.
func (s sqlText) literals() string {
	parts := make([]string, len(s.segs))
	for i, g := range s.segs {
		parts[i] = g.body
	}
	return strings.Join(parts, " ")
}

// scanSQL returns every SQL site in the non-test Go files under root/dir.
func scanSQL(t *testing.T, root, dir string) []sqlSite {
	t.Helper()
	var out []sqlSite
	eachGoFile(t, root, func(fset *token.FileSet, f *ast.File, rel string) {
		out = append(out, sqlSitesIn(fset, f, rel)...)
	}, dir)
	return out
}

// isStore reports whether a module file is one of its store's.
func isStore(rel string) bool { return strings.HasPrefix(filepath.Base(rel), "store") }

// storeViolations returns the files of sites that hold SQL outside a store,
// each with its count, sorted.
func storeViolations(sites []sqlSite) map[string]int {
	out := map[string]int{}
	for _, s := range sites {
		if !isStore(s.file) {
			out[s.file]++
		}
	}
	return out
}

var (
	dollarParam = regexp.MustCompile(`\$[0-9]+`)
	quoted      = regexp.MustCompile(`'(?:[^']|'')*'`)
)

// dialects returns the placeholder dialects a statement uses: "$n" (pgx's,
// for the pipelined transactions of core/db) and "?" (bun's).
func dialects(text string) []string {
	text = quoted.ReplaceAllString(text, "''")
	var out []string
	if dollarParam.MatchString(text) {
		out = append(out, "$n")
	}
	// "?|", "?&" and "? " after a jsonb value are operators, not bun's
	// placeholder; this repository's SQL uses none of them.
	if strings.Contains(text, "?") {
		out = append(out, "?")
	}
	return out
}

// dialectViolations returns, per store file that mixes them, the dialects
// it uses: a store file speaks one, so a statement's placeholders always
// mean what its caller (bun or a pipelined pgx step) expects.
func dialectViolations(sites []sqlSite) map[string][]string {
	seen := map[string]map[string]bool{}
	for _, s := range sites {
		if !isStore(s.file) {
			continue
		}
		for _, d := range dialects(s.text) {
			if seen[s.file] == nil {
				seen[s.file] = map[string]bool{}
			}
			seen[s.file][d] = true
		}
	}
	out := map[string][]string{}
	for file, ds := range seen {
		if len(ds) > 1 {
			out[file] = sortedKeys(ds)
		}
	}
	return out
}

// TestSQLOnlyInStores: no file under modules/ but a store*.go holds SQL,
// and no store file mixes placeholder dialects.
func TestSQLOnlyInStores(t *testing.T) {
	sites := scanSQL(t, repoRoot(t), "modules")
	require.NotEmpty(t, sites, "the modules were scanned")
	got := storeViolations(sites)
	for _, file := range sortedKeys(got) {
		t.Errorf("%s holds %d SQL statement(s) outside a store: move them into a store*.go of its module "+
			"(docs/architecture.md)", file, got[file])
	}
	mixed := dialectViolations(sites)
	for _, file := range sortedKeys(mixed) {
		t.Errorf("%s mixes placeholder dialects %v: a store file speaks one (bun's ? or pgx's $n)", file, mixed[file])
	}
}

// TestStoreRuleCatchesViolations: the rule finds a statement, a
// concatenated statement and a builder outside a store (a file whose name
// merely contains "store" is none), leaves prose and a store alone, and finds a store mixing dialects.
func TestStoreRuleCatchesViolations(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "modules/m/service.go", "package m\n\nvar ok = \"Update the role first\"\n"+
		"var q = `SELECT 1 FROM tasks WHERE id = ?`\nvar c = \"UPDATE tasks SET \" + ok + \" WHERE id = ?\"\n")
	writeFile(t, root, "modules/m/admin_x.go", "package m\n\nfunc f(d db) { d.NewSelect().Model(nil) }\n")
	writeFile(t, root, "modules/m/restore.go", "package m\n\nvar r = `DELETE FROM t WHERE y = ?`\n")
	writeFile(t, root, "modules/m/store.go", "package m\n\nvar a = `SELECT 1 WHERE x = $1`\nvar b = `DELETE FROM t WHERE y = ?`\n")
	writeFile(t, root, "modules/m/store_task.go", "package m\n\nvar a = `SELECT '?' WHERE x = $1`\n"+
		"var b = `SELECT ` + cols + ` FROM t WHERE x = $1`\n")
	sites := scanSQL(t, root, "modules")
	require.Equal(t, map[string]int{"modules/m/service.go": 2, "modules/m/admin_x.go": 1,
		"modules/m/restore.go": 1}, storeViolations(sites))
	require.Equal(t, map[string][]string{"modules/m/store.go": {"$n", "?"}}, dialectViolations(sites),
		"a quoted ? is no placeholder, nor an operand spliced in")
}

// TestSQLCounts prints, per package, the SQL sites and the files holding them:
// the figures issue 32 asks for (go test -run TestSQLCounts -v).
func TestSQLCounts(t *testing.T) {
	sites := scanSQL(t, repoRoot(t), "modules")
	type count struct {
		sites, outside int
		files          map[string]bool
	}
	per := map[string]*count{}
	for _, s := range sites {
		pkg := filepath.Dir(s.file)
		if per[pkg] == nil {
			per[pkg] = &count{files: map[string]bool{}}
		}
		per[pkg].sites++
		per[pkg].files[s.file] = true
		if !isStore(s.file) {
			per[pkg].outside++
		}
	}
	pkgs := sortedKeys(per)
	sort.Strings(pkgs)
	for _, p := range pkgs {
		c := per[p]
		t.Logf("%-22s %4d sites in %2d files, %4d outside a store", p, c.sites, len(c.files), c.outside)
	}
}
