package docs

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// divergence is one list entry of docs/specs/divergences.md: an item of the
// original's checklist with the tests that show it here (Test:), or what the
// board does instead and why (Divergence:), or both.
type divergence struct {
	Line       int
	Section    string // "test_board.py", "§16", "audit", …
	Text       string
	Divergence bool
	Evidence   []evidence
}

var (
	checklistFileRe = regexp.MustCompile(`^\*\*(test_[a-z0-9_]+\.py)\*\*`)
	divFileRe       = regexp.MustCompile(`^### (test_[a-z0-9_]+\.py)\s*$`)
	divTestRe       = regexp.MustCompile(`(?:^|\s)Test: (.+)$`)
)

// parseDivergences reads the entries of divergences.md. An entry is a line
// starting "- " under a "## " heading, with any following lines indented by
// two spaces; its evidence is what follows its last "Test: ", in the
// ledger's syntax, a final full stop aside.
func parseDivergences(text string) ([]divergence, error) {
	var (
		out     []divergence
		section string
		fenced  bool
	)
	for n, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		switch {
		case fenced:
		case strings.HasPrefix(line, "## "):
			switch h := strings.TrimPrefix(line, "## "); {
			case strings.HasPrefix(h, "§16"):
				section = "§16"
			case strings.HasPrefix(h, "§13"):
				section = "§13"
			case strings.HasPrefix(h, "Audit items"):
				section = "audit"
			default:
				section = h
			}
		case divFileRe.MatchString(line):
			section = divFileRe.FindStringSubmatch(line)[1]
		case section == "":
		case strings.HasPrefix(line, "- "):
			out = append(out, divergence{Line: n + 1, Section: section, Text: strings.TrimPrefix(line, "- ")})
		case strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != "" && len(out) > 0 && out[len(out)-1].Section == section:
			out[len(out)-1].Text += " " + strings.TrimSpace(line)
		}
	}
	for i := range out {
		d := &out[i]
		d.Divergence = strings.Contains(d.Text, "Divergence: ")
		at := strings.LastIndex(d.Text, "Test: ")
		if at < 0 {
			continue
		}
		m := divTestRe.FindStringSubmatch(d.Text[max(at-1, 0):])
		if m == nil {
			continue
		}
		ev, err := parseEvidence(strings.TrimSuffix(strings.TrimSpace(m[1]), "."))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", d.Line, err)
		}
		d.Evidence = ev
	}
	return out, nil
}

// checkDivergences returns every entry that neither names tests nor says
// how the board differs, and every named test file or function that does
// not exist.
func checkDivergences(entries []divergence, root string) []string {
	var problems []string
	for _, d := range entries {
		id := fmt.Sprintf("divergences.md:%d", d.Line)
		if len(d.Evidence) == 0 && !d.Divergence {
			problems = append(problems, id+": an entry needs Test: or Divergence:")
		}
		problems = append(problems, checkEvidence(id, d.Evidence, root)...)
	}
	return problems
}

// checklistItems reads docs/specs/behavior.md's §13 and §16: for each original test
// file of §13 the number of its bullets (0 when it is described in one
// paragraph), and under "§16" the number of open points.
func checklistItems(behavior string) map[string]int {
	items := map[string]int{}
	section, file := "", ""
	for _, line := range strings.Split(behavior, "\n") {
		if strings.HasPrefix(line, "## ") {
			section, file = strings.Fields(line)[1], ""
			if section == "16." {
				items["§16"] = 0
			}
			continue
		}
		switch section {
		case "13.":
			if m := checklistFileRe.FindStringSubmatch(line); m != nil {
				file = m[1]
				items[file] = 0
			} else if file != "" && strings.HasPrefix(line, "- ") {
				items[file]++
			}
		case "16.":
			if strings.HasPrefix(line, "- ") {
				items["§16"]++
			}
		}
	}
	return items
}

// checkCoverage returns a problem for every §13 test file without its
// subsection, every subsection that is no §13 file, every bulleted file or
// §16 whose entries are not one per bullet, and every paragraph file with
// no entry.
func checkCoverage(items map[string]int, entries []divergence) []string {
	got := map[string]int{}
	for _, d := range entries {
		got[d.Section]++
	}
	var problems []string
	for name, want := range items {
		switch n, ok := got[name]; {
		case !ok:
			problems = append(problems, name+": no entries")
		case want > 0 && n != want:
			problems = append(problems, fmt.Sprintf("%s: %d entries for %d items of docs/specs/behavior.md", name, n, want))
		}
	}
	for name := range got {
		if _, ok := items[name]; !ok && strings.HasPrefix(name, "test_") {
			problems = append(problems, name+": not a test file of docs/specs/behavior.md §13")
		}
	}
	sort.Strings(problems)
	return problems
}

// Every item of the original's test suite (docs/specs/behavior.md §13) and of
// its open points (§16) is accounted for in docs/specs/divergences.md, and
// every test an entry names exists.
func TestDivergencesEvidenceExists(t *testing.T) {
	raw, err := os.ReadFile("../docs/specs/divergences.md")
	require.NoError(t, err)
	entries, err := parseDivergences(string(raw))
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	require.Empty(t, checkDivergences(entries, ".."))

	behavior, err := os.ReadFile("../docs/specs/behavior.md")
	require.NoError(t, err)
	items := checklistItems(string(behavior))
	require.Greater(t, len(items), 20, "docs/specs/behavior.md §13 names the original's test files")
	require.Empty(t, checkCoverage(items, entries))
}

func TestDivergenceCheckerCatchesBadEntries(t *testing.T) {
	bad := "# Intro\n\n- not an entry, before any section\n\n" +
		"## §13 — the original's test suite\n\n### test_x.py\n\n" +
		"- good. Test: docs/docs_test.go TestInvariantLedgerEvidenceExists\n" +
		"- a test that does not exist. Test: docs/docs_test.go TestNobodyWroteThis\n" +
		"- a file that does not exist. Test: docs/nope_test.go TestX\n" +
		"- neither tests nor a divergence\n" +
		"- a divergence. Divergence: we do it\n  another way. Test: docs/docs_test.go TestNobodyEither\n" +
		"- not a test function. Test: docs/docs_test.go parseLedger\n\n" +
		"## §16 — open points and quirks\n\n- a quirk. Divergence: kept.\n"
	entries, err := parseDivergences(bad)
	require.NoError(t, err)
	require.Len(t, entries, 7)
	require.Equal(t, "test_x.py", entries[0].Section)
	require.Equal(t, "§16", entries[6].Section)
	require.True(t, entries[4].Divergence)
	require.Contains(t, entries[4].Text, "another way", "an indented line continues its entry")
	problems := checkDivergences(entries, "..")
	require.Len(t, problems, 5, "%q", problems)
	joined := strings.Join(problems, "\n")
	for _, want := range []string{"TestNobodyWroteThis", "nope_test.go", "divergences.md:12: an entry needs Test: or Divergence:",
		"TestNobodyEither", "parseLedger is not a test"} {
		require.Contains(t, joined, want)
	}
	_, err = parseDivergences("## §16\n\n- x. Test: docs/docs_test.go\n")
	require.Error(t, err, "a file without a test function is not evidence")

	items := map[string]int{"test_x.py": 6, "test_y.py": 0, "§16": 2}
	cov := checkCoverage(items, entries)
	require.Equal(t, []string{"test_y.py: no entries", "§16: 1 entries for 2 items of docs/specs/behavior.md"}, cov)
	cov = checkCoverage(map[string]int{"§16": 1}, entries)
	require.Equal(t, []string{"test_x.py: not a test file of docs/specs/behavior.md §13"}, cov)

	behavior := "## 13. Tests\n\n**test_a.py** (x)\n- one\n- two\n  more of two\n\n**test_b.py**: all in one.\n\n" +
		"## 14. Other\n- not an item\n\n## 16. Open points\n\n- p1\n- p2\n\n## 17. Related\n- not either\n"
	require.Equal(t, map[string]int{"test_a.py": 2, "test_b.py": 0, "§16": 2}, checklistItems(behavior))
}
