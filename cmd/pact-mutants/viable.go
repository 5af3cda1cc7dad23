package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// exportData maps each dependency of pkg to the compiler's export data for
// it (go list -export, from the build cache): type-checking pkg against
// these takes a fraction of a second, where type-checking every dependency
// from source took tens of seconds for a package that imports the board.
func exportData(root, pkg string) (map[string]string, error) {
	// From the package's directory: go finds the module that holds it
	// (sdk/ is a module of its own).
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", ".")
	cmd.Dir = filepath.Join(root, pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export %s: %v: %s", pkg, err, stderr.String())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
	}
	return exports, nil
}

// stringConcats finds where pkg's files join strings with + (or +=): the
// places where gremlins' ARITHMETIC_BASE mutant (- for +) cannot compile.
// gremlins tells a mutant that does not compile from one a test kills only
// where it does not run it: a covered one it reports killed, since its
// test run fails (docs/mutants.md). Keys are "file.go:line:column" of the
// operator, as in gremlins' results.
func stringConcats(root, pkg string, files []string) (map[string]bool, error) {
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		// A file of another platform (//go:build !linux) is not compiled
		// here, and would redeclare what this platform's file declares.
		if ok, err := build.Default.MatchFile(filepath.Join(root, pkg), f); err != nil || !ok {
			continue
		}
		af, err := parser.ParseFile(fset, filepath.Join(root, pkg, f), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, af)
	}
	exports, err := exportData(root, pkg)
	if err != nil {
		return nil, err
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	if _, err := conf.Check(pkg, fset, parsed, info); err != nil {
		return nil, fmt.Errorf("type-check %s: %w", pkg, err)
	}
	isString := func(e ast.Expr) bool {
		t := info.Types[e].Type
		if t == nil {
			return false
		}
		b, ok := t.Underlying().(*types.Basic)
		return ok && b.Info()&types.IsString != 0
	}
	at := func(p token.Pos) string {
		pos := fset.Position(p)
		return fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column)
	}
	found := map[string]bool{}
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if x.Op == token.ADD && isString(x.X) {
					found[at(x.OpPos)] = true
				}
			case *ast.AssignStmt:
				if x.Tok == token.ADD_ASSIGN && isString(x.Lhs[0]) {
					found[at(x.TokPos)] = true
				}
			}
			return true
		})
	}
	return found, nil
}
