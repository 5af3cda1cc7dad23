package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pact-admin reaches a module only through the module's cli.go: the
// functions and methods it calls of a package under modules/ are declared
// in that package's cli.go, an adapter over the same service methods the
// Admin API calls (docs/architecture.md, "A service and a store per
// module"). Types, constants and constructors (New) may be named from
// anywhere. The rule type-checks cmd/pact-admin itself, so a call through
// a field, a variable or an embedded type is seen as what it is.

// moduleCall is one use, in cmd/pact-admin, of a module's function or
// method: "modules/board.Module.CancelTask" with where it is called.
type moduleCall struct {
	name string // "modules/board (*Module).CancelTask" or "modules/board.New"
	file string // the file of the module that declares it
	at   string // where pact-admin calls it
}

// exportData lists, for every package dir's build depends on, the file
// holding its compiled export data (`go list -export`).
func exportData(t *testing.T, root, dir string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", dir)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export: %s", stderr.String())
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		exports[p.ImportPath] = p.Export
	}
	return exports
}

// moduleCalls type-checks the non-test files of the package in dir
// (repository-relative) and returns every call of a function or method
// declared in a package under modules/.
func moduleCalls(t *testing.T, root, dir string) []moduleCall {
	t.Helper()
	exports := exportData(t, root, "./"+dir)
	fset := token.NewFileSet()
	entries, err := os.ReadDir(filepath.Join(root, dir))
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, dir, e.Name()), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	_, err = conf.Check(repo+"/"+dir, fset, files, info)
	require.NoError(t, err)
	var out []moduleCall
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() == nil {
			continue
		}
		rel, ok := local(fn.Pkg().Path())
		if !ok || !under(rel, "modules") {
			continue
		}
		name := rel + "." + fn.Name()
		if recv := fn.Signature().Recv(); recv != nil {
			name = rel + " " + types.TypeString(recv.Type(), func(*types.Package) string { return "" }) + "." + fn.Name()
		}
		out = append(out, moduleCall{name: name, file: filepath.Base(fset.Position(fn.Pos()).Filename),
			at: fmt.Sprintf("%s:%d", filepath.Join(dir, filepath.Base(fset.Position(id.Pos()).Filename)), fset.Position(id.Pos()).Line)})
	}
	return out
}

// cliViolations returns the module functions and methods called from
// outside their module's cli.go, constructors aside, each once.
func cliViolations(calls []moduleCall) map[string]string {
	out := map[string]string{}
	for _, c := range calls {
		if c.file == "cli.go" || strings.HasSuffix(c.name, ".New") {
			continue
		}
		if _, seen := out[c.name]; !seen {
			out[c.name] = c.at + " calls it; it is declared in " + c.file
		}
	}
	return out
}

// TestPactAdminCallsModulesThroughTheirCLI: every module function or
// method pact-admin calls is declared in its module's cli.go.
func TestPactAdminCallsModulesThroughTheirCLI(t *testing.T) {
	calls := moduleCalls(t, repoRoot(t), "cmd/pact-admin")
	require.NotEmpty(t, calls, "pact-admin calls the modules")
	got := cliViolations(calls)
	for _, name := range sortedKeys(got) {
		t.Errorf("pact-admin calls %s outside the module's cli.go (%s): declare the function pact-admin "+
			"needs in that module's cli.go, over the service method the Admin API calls", name, got[name])
	}
}

// TestCLIRuleCatchesViolations: a method or function declared outside
// cli.go is a violation, named once; one in cli.go and a constructor are
// not.
func TestCLIRuleCatchesViolations(t *testing.T) {
	got := cliViolations([]moduleCall{
		{name: "modules/board *Module.CancelTask", file: "admin_tasks.go", at: "cmd/pact-admin/tasks.go:10"},
		{name: "modules/board *Module.CancelTask", file: "admin_tasks.go", at: "cmd/pact-admin/tasks.go:20"},
		{name: "modules/board.Cancel", file: "cli.go", at: "cmd/pact-admin/tasks.go:30"},
		{name: "modules/board.New", file: "module.go", at: "cmd/pact-admin/main.go:1"},
		{name: "modules/notes.ListFor", file: "clix.go", at: "cmd/pact-admin/notes.go:5"},
	})
	require.Equal(t, map[string]string{
		"modules/board *Module.CancelTask": "cmd/pact-admin/tasks.go:10 calls it; it is declared in admin_tasks.go",
		"modules/notes.ListFor":            "cmd/pact-admin/notes.go:5 calls it; it is declared in clix.go",
	}, got)
}
