// Package archtest enforces the one-way dependency rule of
// docs/architecture.md: it lists every package of the repository with
// `go list` (the root module and sdk/) and fails on an import that points
// the wrong way. It also enforces table ownership (owners_test.go): the SQL
// in the code against the owners the catalog declares. It has no non-test
// code.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const repo = "github.com/pactboard/pact"

// pkg is what the rules need of `go list -json`: a package and everything
// it and its tests import.
type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// local returns the repository-relative path of an import path of ours
// ("core/db", "sdk/errs", "" for the root package), and false for anything else.
func local(importPath string) (string, bool) {
	if importPath == repo {
		return "", true
	}
	rel, ok := strings.CutPrefix(importPath, repo+"/")
	return rel, ok
}

// under reports whether rel is dir or inside it.
func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// segment returns the first path element after dir/ ("tasks" for
// modules/tasks/store under modules).
func segment(rel, dir string) string {
	rest, _ := strings.CutPrefix(rel, dir+"/")
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// rule forbids some imports: from and to are repository-relative, and to
// is "" with ours false for an import outside the repository.
type rule struct {
	name    string
	forbids func(from, to string, ours bool) bool
	why     string
}

func rules() []rule {
	return []rule{
		{"modules are independent", func(from, to string, ours bool) bool {
			return ours && under(from, "modules") && under(to, "modules") && segment(from, "modules") != segment(to, "modules")
		}, "modules talk through the kernel (a hook or an interface core defines), never by importing each other"},
		{"core stands below modules", func(from, to string, ours bool) bool {
			return ours && under(from, "core") && (under(to, "modules") || under(to, "cmd") || under(to, "plugins"))
		}, "core must not know the modules, plugins or commands built on it; give it a hook and let them register"},
		{"sdk is self-contained", func(from, to string, ours bool) bool {
			return ours && under(from, "sdk") && !under(to, "sdk")
		}, "sdk is published on its own; it may import nothing of this repository outside sdk/"},
		{"plugins see only the sdk", func(from, to string, ours bool) bool {
			return ours && under(from, "plugins") && !under(to, "sdk") && segment(from, "plugins") != segment(to, "plugins")
		}, "a plugin is a separate process; it talks to the board through sdk/ only"},
		{"commands are leaves", func(from, to string, ours bool) bool {
			return ours && under(to, "cmd") && segment(from, "cmd") != segment(to, "cmd")
		}, "cmd/ packages are binaries; move shared code into core/"},
		{"migrations are a leaf data package", func(from, to string, ours bool) bool {
			return (under(from, "migrations") && ours) ||
				(ours && under(to, "migrations") && from != "core/db")
		}, "migrations embeds SQL and imports nothing of ours; only core/db reads it"},
	}
}

// violation is one forbidden import.
type violation struct{ rule, from, to, why string }

func (v violation) String() string {
	return fmt.Sprintf("%s imports %s: %s (rule %q)", v.from, v.to, v.why, v.rule)
}

// check applies every rule to every import of pkgs.
func check(pkgs []pkg) []violation {
	var out []violation
	for _, p := range pkgs {
		from, ok := local(p.ImportPath)
		if !ok {
			continue
		}
		imports := slices.Concat(p.Imports, p.TestImports, p.XTestImports)
		slices.Sort(imports)
		for _, imp := range slices.Compact(imports) {
			to, ours := local(imp)
			for _, r := range rules() {
				if r.forbids(from, to, ours) {
					out = append(out, violation{r.name, p.ImportPath, imp, r.why})
				}
			}
		}
	}
	return out
}

// goList lists the packages of the module in dir.
func goList(t *testing.T, dir string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles,Imports,TestImports,XTestImports", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list in %s: %s", dir, stderr.String())
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs, "go list in %s found no packages", dir)
	return pkgs
}

func TestDependenciesPointOneWay(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	pkgs := append(goList(t, root), goList(t, filepath.Join(root, "sdk"))...)

	paths := make([]string, len(pkgs))
	for i, p := range pkgs {
		paths[i] = p.ImportPath
	}
	require.Contains(t, paths, repo+"/core/kernel", "the root module was listed")
	require.Contains(t, paths, repo+"/sdk/errs", "the sdk module was listed")

	for _, v := range check(pkgs) {
		t.Error(v)
	}
	for _, p := range pkgs {
		for _, f := range p.GoFiles {
			if hasInit(t, filepath.Join(p.Dir, f)) {
				t.Errorf("%s declares func init: register explicitly from cmd/ instead (style guide rule 5)", filepath.Join(p.ImportPath, f))
			}
		}
	}
}

// hasInit reports whether the Go file at path declares func init. Generated
// code (protobuf descriptors register themselves in init) is not ours to
// shape, and is exempt.
func hasInit(t *testing.T, path string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution|parser.ParseComments)
	require.NoError(t, err)
	if ast.IsGenerated(f) {
		return false
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
			return true
		}
	}
	return false
}
