package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Adapters translate and decide nothing (docs/architecture.md, "A service
// and a store per module"). What an adapter may refuse on its own is the
// form of the request it translates: a body that does not parse, a
// missing argument, a wrong method or route, no credential, a body too
// large, the board unable to check now. Every other refusal (a role, a
// scope, a state, a limit) is a rule, so it comes from the service.

// adapterFile reports whether a module file is an adapter: an MCP tool, an
// Admin operation, a hook endpoint, or pact-admin's.
var adapterFile = regexp.MustCompile(`^(tools?(_.*)?|admin(_.*)?|hooks_.*|cli)\.go$`)

// formCodes are the refusals about a request's form.
var formCodes = map[string]bool{"InvalidRequest": true, "ProjectRequired": true, "Unauthorized": true,
	"MethodNotAllowed": true, "NotFound": true, "TooLarge": true, "Unavailable": true}

// adapterRefusal is one refusal an adapter makes itself.
type adapterRefusal struct {
	code string // the errs constant, "Forbidden"
	at   string // "modules/board/cli.go:151"
}

// refusalsIn returns the errs.E and errs.Mandate refusals of one file.
func refusalsIn(fset *token.FileSet, f *ast.File, rel string) []adapterRefusal {
	var out []adapterRefusal
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		fn, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || fmt.Sprint(fn.X) != "errs" || (fn.Sel.Name != "E" && fn.Sel.Name != "Mandate") {
			return true
		}
		code := "?"
		if c, ok := call.Args[0].(*ast.SelectorExpr); ok && fmt.Sprint(c.X) == "errs" {
			code = c.Sel.Name
		}
		out = append(out, adapterRefusal{code, fmt.Sprintf("%s:%d", rel, fset.Position(call.Pos()).Line)})
		return true
	})
	return out
}

// decidingAdapters returns the refusals under root/modules whose adapter
// makes them with a code that is not about the request's form.
func decidingAdapters(t *testing.T, root string) (deciding []adapterRefusal, read int) {
	t.Helper()
	fset := token.NewFileSet()
	dirs, err := os.ReadDir(filepath.Join(root, "modules"))
	require.NoError(t, err)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, "modules", d.Name()))
		require.NoError(t, err)
		for _, e := range files {
			name := e.Name()
			if strings.HasSuffix(name, "_test.go") || !adapterFile.MatchString(name) {
				continue
			}
			rel := filepath.ToSlash(filepath.Join("modules", d.Name(), name))
			read++
			f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, r := range refusalsIn(fset, f, rel) {
				if !formCodes[r.code] && !adapterExceptions()[strings.Split(r.at, ":")[0]+" "+r.code] {
					deciding = append(deciding, r)
				}
			}
		}
	}
	return deciding, read
}

// adapterExceptions are the refusals an adapter makes with another code,
// each with why it is still about the request's form.
func adapterExceptions() map[string]bool {
	return map[string]bool{
		// pact-admin without --by: the person acting is an argument of the
		// command; identity.Act refuses an empty one with the same code.
		"modules/board/cli.go Forbidden":  true,
		"modules/people/cli.go Forbidden": true,
	}
}

// TestAdaptersDecideNothing: no adapter file of any module refuses with a
// code that is not about the request's form.
func TestAdaptersDecideNothing(t *testing.T) {
	deciding, read := decidingAdapters(t, repoRoot(t))
	require.Greater(t, read, 30, "the modules' adapters were read")
	for _, r := range deciding {
		t.Errorf("%s: an adapter refuses %s itself; a refusal that is a rule belongs in the module's service "+
			"(docs/architecture.md, \"A service and a store per module\")", r.at, r.code)
	}
}

// TestAdapterRuleCatchesADecision: a tool refusing a scope is caught; its
// refusal of a missing argument, and a service's scope refusal, are not.
func TestAdapterRuleCatchesADecision(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "modules/m/tools_x.go", "package m\n\nfunc a() error { return errs.E(errs.InvalidRequest, \"x\") }\n"+
		"func b() error { return errs.Mandate(errs.ScopeExceeded, \"m\", \"y\") }\n")
	writeFile(t, root, "modules/m/admin.go", "package m\n\nfunc c() error { return errs.E(errs.Forbidden, \"z\") }\n")
	writeFile(t, root, "modules/m/service.go", "package m\n\nfunc d() error { return errs.E(errs.ScopeExceeded, \"w\") }\n")
	got, read := decidingAdapters(t, root)
	require.Equal(t, 2, read, "tools_x.go and admin.go are adapters, service.go is not")
	require.Equal(t, []adapterRefusal{{"Forbidden", "modules/m/admin.go:3"}, {"ScopeExceeded", "modules/m/tools_x.go:4"}}, got)
}
