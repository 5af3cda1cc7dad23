package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// replacements is gremlins v0.6.0's table of what each mutant type turns a
// token into (docs/mutants.md, "Not covered, run by hand"), keyed by the
// type's name as its results spell it.
var replacements = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ, token.NEQ: token.EQL},
	"INCREMENT_DECREMENT":   {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_ASSIGNMENTS":    {token.ADD_ASSIGN: token.SUB_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.REM_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN},
	"INVERT_BITWISE":        {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL},
	"INVERT_BWASSIGN": {token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN,
		token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN},
	"INVERT_LOGICAL":   {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":  {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_NEGATIVES": {token.SUB: token.ADD},
	"REMOVE_SELF_ASSIGNMENTS": {token.ADD_ASSIGN: token.ASSIGN, token.AND_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN,
		token.MUL_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN, token.REM_ASSIGN: token.ASSIGN,
		token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN, token.SUB_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN},
}

// mutate returns src with the token at line:column (1-based, in bytes, as
// gremlins reports it) replaced as the mutant type kind replaces it.
func mutate(src []byte, line, column int, kind string) ([]byte, error) {
	table, ok := replacements[kind]
	if !ok {
		return nil, fmt.Errorf("mutant type %s is not one gremlins v0.6.0 makes", kind)
	}
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return nil, fmt.Errorf("no token at %d:%d", line, column)
		}
		if p := fset.Position(pos); p.Line != line || p.Column != column {
			continue
		}
		to, ok := table[tok]
		if !ok {
			return nil, fmt.Errorf("%d:%d is %s, which %s does not mutate", line, column, tok, kind)
		}
		off := file.Offset(pos)
		return slices.Concat(src[:off], []byte(to.String()), src[off+len(tok.String()):]), nil
	}
}

// byHand runs, against the package's whole suite, each mutant of a slice's
// results that gremlins called not covered. Go's cover profile has no
// block for a switch case's expressions nor for a package-level
// initialiser, so gremlins calls those mutants not covered though tests
// run them. Each mutant is compiled into a test binary of its own through
// go's -overlay (the tree is never written) and run with -test.failfast in
// a process group of its own, bounded by the suite's unmutated time times
// coefficient. Its verdict replaces NOT COVERED in the results file, which
// marks it "by_hand". It returns how many it ran.
func byHand(root, pkg, results, work string, coefficient int, w io.Writer) (int, error) {
	data, err := os.ReadFile(results)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		return 0, fmt.Errorf("%s: %w", results, err)
	}
	scratch, err := os.MkdirTemp(work, "hand-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(scratch)
	var bound time.Duration
	ran := 0
	files, _ := r["files"].([]any)
	for _, f := range files {
		f, _ := f.(map[string]any)
		name, _ := f["file_name"].(string)
		path := filepath.Join(root, pkg, filepath.Base(name))
		muts, _ := f["mutations"].([]any)
		for _, m := range muts {
			m, _ := m.(map[string]any)
			if m["status"] != "NOT COVERED" {
				continue
			}
			if bound == 0 {
				took, err := suiteTime(root, pkg, scratch)
				if errors.Is(err, errNoTests) {
					return 0, nil // nothing can kill them: they stay not covered
				}
				if err != nil {
					return ran, err
				}
				bound = max(took*time.Duration(coefficient), 10*time.Second)
			}
			line, _ := m["line"].(float64)
			column, _ := m["column"].(float64)
			kind, _ := m["type"].(string)
			verdict, err := runMutant(root, pkg, path, int(line), int(column), kind, scratch, bound)
			if err != nil {
				return ran, err
			}
			fmt.Fprintf(w, "   by hand %s:%d:%d %s: %s\n", filepath.Base(name), int(line), int(column), kind, verdict)
			m["status"], m["by_hand"] = verdict, true
			ran++
		}
	}
	if ran == 0 {
		return 0, nil
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return ran, err
	}
	return ran, os.WriteFile(results, out, 0o644)
}

// suiteTime builds and runs pkg's tests unmutated, and fails if they do:
// no mutant's verdict would mean anything.
func suiteTime(root, pkg, scratch string) (time.Duration, error) {
	bin := filepath.Join(scratch, "unmutated.test")
	if out, err := buildTests(root, pkg, bin, ""); errors.Is(err, errNoTests) {
		return 0, err
	} else if err != nil {
		return 0, fmt.Errorf("go test -c %s: %v: %s", pkg, err, tail(out))
	}
	start := time.Now()
	verdict, out := runTests(root, pkg, bin, time.Hour)
	if verdict != "LIVED" {
		return 0, fmt.Errorf("%s: the tests fail unmutated, so no mutant's verdict would mean anything: %s", pkg, tail(out))
	}
	return time.Since(start), nil
}

// runMutant is one mutant's verdict: NOT VIABLE where it does not compile,
// KILLED where a test fails, TIMED OUT past bound, else LIVED.
func runMutant(root, pkg, path string, line, column int, kind, scratch string, bound time.Duration) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	mutated, err := mutate(src, line, column, kind)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	file := filepath.Join(scratch, "mutant.go")
	overlay := filepath.Join(scratch, "overlay.json")
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {path: file}})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(scratch, "mutant.test")
	_ = os.Remove(bin)
	if _, err := buildTests(root, pkg, bin, overlay); err != nil {
		return "NOT VIABLE", nil
	}
	verdict, _ := runTests(root, pkg, bin, bound)
	return verdict, nil
}

// errNoTests is buildTests' answer for a package without tests: go test -c
// writes no binary.
var errNoTests = errors.New("the package has no tests")

// buildTests compiles pkg's tests into bin, through overlay if one is
// given.
func buildTests(root, pkg, bin, overlay string) (string, error) {
	args := []string{"test", "-c", "-o", bin}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command("go", append(args, "./"+pkg)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err == nil {
		if _, serr := os.Stat(bin); serr != nil {
			return string(out), errNoTests
		}
	}
	return string(out), err
}

// runTests runs a test binary from pkg's directory in a process group of
// its own, which a timeout kills whole: a mutant that signals its group
// (kill(0)) or leaves children behind takes nothing else with it.
func runTests(root, pkg, bin string, bound time.Duration) (verdict, output string) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.failfast")
	cmd.Dir = filepath.Join(root, pkg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "TIMED OUT", out.String()
	case err != nil:
		return "KILLED", out.String()
	}
	return "LIVED", strings.TrimSpace(out.String())
}
