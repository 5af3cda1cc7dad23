// Package docs holds the project's documentation; its tests keep the
// documents honest against the code.
package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/sdk/errs"
)

// contract is one entry of the invariant ledger.
type contract struct {
	ID, Title, Status string
	// Populations holds the first line of each Population line's text:
	// what set the contract quantifies over and where its evidence derives
	// it from, or "none".
	Populations []string
	Evidence    []evidence
}

type evidence struct {
	Path  string
	Funcs []string
}

var (
	headingRe    = regexp.MustCompile(`^## ([A-Z]+-[0-9]{3}) — (.+)$`)
	statusRe     = regexp.MustCompile(`^Status: (Current|Proposed)$`)
	evidenceRe   = regexp.MustCompile(`^Evidence: (.+)$`)
	populationRe = regexp.MustCompile(`^Population:(.*)$`)
	funcRe       = regexp.MustCompile(`^(Test|Benchmark|Fuzz)[A-Za-z0-9_]*$`)
)

// parseLedger reads the contracts of an invariant ledger. Evidence lines
// read "Evidence: path/to/file_test.go TestA TestB; other_test.go TestC".
func parseLedger(text string) ([]contract, error) {
	var out []contract
	for n, line := range strings.Split(text, "\n") {
		if m := headingRe.FindStringSubmatch(line); m != nil {
			out = append(out, contract{ID: m[1], Title: m[2]})
			continue
		}
		if strings.HasPrefix(line, "## ") && strings.Contains(line, " — ") {
			// A contract's heading the checker cannot read would fold the
			// contract into the one above it, unchecked.
			return nil, fmt.Errorf("line %d: %q is not a contract heading (## ABC-123 — title)", n+1, line)
		}
		if len(out) == 0 {
			continue
		}
		c := &out[len(out)-1]
		if m := statusRe.FindStringSubmatch(line); m != nil {
			c.Status = m[1]
		}
		if m := populationRe.FindStringSubmatch(line); m != nil {
			c.Populations = append(c.Populations, strings.TrimSpace(m[1]))
		}
		if m := evidenceRe.FindStringSubmatch(line); m != nil {
			ev, err := parseEvidence(m[1])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			c.Evidence = append(c.Evidence, ev...)
		}
	}
	return out, nil
}

// checkLedger returns every problem with the contracts: duplicate ids, a
// missing status, a contract without exactly one non-empty Population line,
// Current contracts without evidence, and evidence that names a file or a
// test function that does not exist.
func checkLedger(contracts []contract, root string) []string {
	var problems []string
	seen := map[string]bool{}
	for _, c := range contracts {
		if seen[c.ID] {
			problems = append(problems, c.ID+": duplicate id")
		}
		seen[c.ID] = true
		if c.Status == "" {
			problems = append(problems, c.ID+": no Status: Current|Proposed line")
		}
		switch {
		case len(c.Populations) != 1:
			problems = append(problems, fmt.Sprintf("%s: %d Population lines; a contract has exactly one (\"Population: none.\" where it names no set)", c.ID, len(c.Populations)))
		case c.Populations[0] == "":
			problems = append(problems, c.ID+": an empty Population line: say what set the contract quantifies over and where its evidence derives it from, or none")
		}
		if c.Status == "Current" && len(c.Evidence) == 0 {
			problems = append(problems, c.ID+": a Current contract needs evidence")
		}
		problems = append(problems, checkEvidence(c.ID, c.Evidence, root)...)
	}
	return problems
}

// parseEvidence reads "path/to/file_test.go TestA TestB; other_test.go TestC",
// the evidence syntax the invariant ledger and docs/specs/divergences.md share.
func parseEvidence(text string) ([]evidence, error) {
	var out []evidence
	for _, item := range strings.Split(text, ";") {
		fields := strings.Fields(item)
		if len(fields) < 2 {
			return nil, fmt.Errorf("evidence %q needs a file and at least one test function", item)
		}
		out = append(out, evidence{Path: fields[0], Funcs: fields[1:]})
	}
	return out, nil
}

// checkEvidence returns a problem, prefixed with id, for every evidence file
// that does not exist under root and every function it names that is not a
// test, benchmark or fuzz function declared in that file.
func checkEvidence(id string, ev []evidence, root string) []string {
	var problems []string
	for _, e := range ev {
		src, err := os.ReadFile(filepath.Join(root, e.Path))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: evidence file %s: %v", id, e.Path, err))
			continue
		}
		for _, f := range e.Funcs {
			if !funcRe.MatchString(f) {
				problems = append(problems, fmt.Sprintf("%s: %s is not a test, benchmark or fuzz function name", id, f))
				continue
			}
			if !regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(f) + `\(`).Match(src) {
				problems = append(problems, fmt.Sprintf("%s: %s has no func %s", id, e.Path, f))
			}
		}
	}
	return problems
}

func TestInvariantLedgerEvidenceExists(t *testing.T) {
	raw, err := os.ReadFile("invariants.md")
	require.NoError(t, err)
	contracts, err := parseLedger(string(raw))
	require.NoError(t, err)
	require.NotEmpty(t, contracts)
	require.Empty(t, checkLedger(contracts, ".."))
}

func TestLedgerCheckerCatchesBadEntries(t *testing.T) {
	bad := `## LOG-001 — one
Status: Current
Population: none.
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-001 — the same id again
Status: Current
Population: none.
Evidence: docs/nope_test.go TestX

## LOG-002 — a test that does not exist
Status: Current
Population: every entry of the log,
read from the database.
Evidence: docs/docs_test.go TestNobodyWroteThis

## LOG-003 — no evidence
Status: Current
Population: none.

## LOG-004 — no status
Population: none.
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-005 — no population
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-006 — two populations
Status: Current
Population: none.
Population: every table.
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-007 — an empty population
Status: Current
Population:
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists
`
	contracts, err := parseLedger(bad)
	require.NoError(t, err)
	problems := checkLedger(contracts, "..")
	require.Len(t, problems, 8, "%q", problems)
	joined := strings.Join(problems, "\n")
	for _, want := range []string{"LOG-001: duplicate id", "nope_test.go", "TestNobodyWroteThis", "LOG-003: a Current contract needs evidence", "LOG-004: no Status",
		"LOG-005: 0 Population lines", "LOG-006: 2 Population lines", "LOG-007: an empty Population line"} {
		require.Contains(t, joined, want)
	}
	_, err = parseLedger("## LOG-DLV-001 — an id the checker cannot read\nStatus: Current\n")
	require.ErrorContains(t, err, "not a contract heading")
	_, err = parseLedger("## LOG-009 — x\nStatus: Current\nEvidence: docs/docs_test.go\n")
	require.Error(t, err, "a file without a test function is not evidence")
}

// Every code in the vocabulary is documented in errors.md.
func TestEveryErrorCodeIsDocumented(t *testing.T) {
	raw, err := os.ReadFile("errors.md")
	require.NoError(t, err)
	for _, c := range errs.All() {
		require.Contains(t, string(raw), "| `"+string(c)+"` |", "docs/errors.md does not document %s", c)
	}
}

// tableRows returns the rows of the first markdown table after the line
// header, each as its cells, trimmed.
func tableRows(text, header string) [][]string {
	var rows [][]string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == header:
			in = true
		case in && strings.HasPrefix(line, "| ---"):
		case in && strings.HasPrefix(line, "|"):
			// A cell may hold an escaped bar (\|), which divides nothing.
			inner := strings.ReplaceAll(strings.Trim(strings.TrimSpace(line), "|"), `\|`, "\x00")
			cells := strings.Split(inner, "|")
			for i := range cells {
				cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), "\x00", `\|`)
			}
			rows = append(rows, cells)
		case in:
			return rows
		}
	}
	return rows
}

// Every variable the board reads is a row of docs/configuration.md, with
// the default core/boot gives it, and the page names no variable the board
// does not read.
func TestEveryVariableIsOnTheConfigurationPage(t *testing.T) {
	rows := tableRows(readFile(t, "configuration.md"), "| Variable | Default | Meaning |")
	require.NotEmpty(t, rows, "docs/configuration.md has no variable table")
	documented := map[string]string{}
	for _, r := range rows {
		require.Len(t, r, 3, "row %q", r)
		name := strings.Trim(r[0], "`")
		require.Regexp(t, `^[A-Z][A-Z0-9_]*$`, name, "one variable per row: %q", r[0])
		documented[name] = plainDefault(r[1])
	}
	vars := boot.Vars()
	require.NotEmpty(t, vars)
	known := map[string]bool{}
	for _, v := range vars {
		known[v.Name] = true
		def, ok := documented[v.Name]
		require.True(t, ok, "docs/configuration.md does not document %s", v.Name)
		require.Equal(t, plainDefault(v.Default), def, "the default of %s in docs/configuration.md", v.Name)
	}
	for name := range documented {
		require.True(t, known[name], "docs/configuration.md documents %s, which the board does not read", name)
	}
}

// plainDefault is a default as a table cell shows it, without code marks;
// none is "".
func plainDefault(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "`", ""))
	if s == "–" || s == "-" {
		return ""
	}
	return s
}
