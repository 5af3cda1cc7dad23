package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
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

// runTests runs a test binary from pkg's directory, only the tests run
// matches ("" for all), in a process group of its own, which a timeout kills whole: a mutant that signals its group
// (kill(0)) or leaves children behind takes nothing else with it.
func runTests(root, pkg, bin, run string, bound time.Duration) (verdict, output string) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	args := []string{"-test.count=1", "-test.failfast"}
	if run != "" {
		args = append(args, "-test.run", run)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
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
