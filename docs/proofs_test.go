package docs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var proofRe = regexp.MustCompile(`^([A-Z]+-[0-9]{3})-(g?)([0-9]+)\.patch$`)

// readMissing reads docs/proofs/MISSING (or UNDRAWN): one contract id a
// line, first on the line, then why it has no mutation (drawn one) yet; #
// starts a comment.
func readMissing(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if f := strings.Fields(line); len(f) > 0 {
			out[f[0]] = true
		}
	}
	return out
}

// checkProofs returns every problem with the mutations (docs/proofs/README.md):
// a Current contract with neither a patch nor a line in MISSING, a contract
// in MISSING that has a patch (the list only shrinks), an id in MISSING that
// is not a Current contract, a patch whose name is not <ID>-<n>.patch or
// <ID>-g<n>.patch of a Current contract; and the same of the drawn ones
// (<ID>-g<n>.patch) against UNDRAWN, for every contract with a
// hand-written patch.
func checkProofs(contracts []contract, patches []string, missing, undrawn map[string]bool) []string {
	var problems []string
	current := map[string]bool{}
	for _, c := range contracts {
		if c.Status == "Current" {
			current[c.ID] = true
		}
	}
	proved, drawn := map[string]bool{}, map[string]bool{}
	for _, p := range patches {
		m := proofRe.FindStringSubmatch(p)
		switch {
		case m == nil:
			problems = append(problems, fmt.Sprintf("docs/proofs/%s: a mutation is named <ID>-<n>.patch, or <ID>-g<n>.patch where a tool drew it", p))
		case !current[m[1]]:
			problems = append(problems, fmt.Sprintf("docs/proofs/%s: %s is not a Current contract", p, m[1]))
		case m[2] == "g":
			drawn[m[1]] = true
		default:
			proved[m[1]] = true
		}
	}
	for _, c := range contracts {
		if c.Status != "Current" {
			continue
		}
		switch {
		case !proved[c.ID] && !missing[c.ID]:
			problems = append(problems, c.ID+": a Current contract needs a mutation its evidence kills (docs/proofs/"+c.ID+"-1.patch)")
		case proved[c.ID] && missing[c.ID]:
			problems = append(problems, c.ID+": has a mutation now; take it out of docs/proofs/MISSING")
		case proved[c.ID] && !drawn[c.ID] && !undrawn[c.ID]:
			problems = append(problems, c.ID+": needs a mutation drawn by a tool (go run ./cmd/pact-mutants -draw "+c.ID+"), or a line in docs/proofs/UNDRAWN saying why none can be")
		case drawn[c.ID] && undrawn[c.ID]:
			problems = append(problems, c.ID+": has a drawn mutation now; take it out of docs/proofs/UNDRAWN")
		}
	}
	for list, ids := range map[string]map[string]bool{"MISSING": missing, "UNDRAWN": undrawn} {
		var sorted []string
		for id := range ids {
			sorted = append(sorted, id)
		}
		slices.Sort(sorted)
		for _, id := range sorted {
			if !current[id] {
				problems = append(problems, "docs/proofs/"+list+": "+id+" is not a Current contract")
			}
		}
	}
	return problems
}

// recordedPatches names the mutations in docs/proofs (<ID>-<n>.patch).
func recordedPatches(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("proofs")
	require.NoError(t, err)
	var patches []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".patch") {
			patches = append(patches, e.Name())
		}
	}
	return patches
}

// The population is the ledger itself: every Current contract, including
// one added later, has a recorded mutation or is listed, visibly, in
// docs/proofs/MISSING. cmd/pact-proofs (make proofs) checks that each
// mutation is killed.
func TestEveryCurrentContractHasAMutation(t *testing.T) {
	raw, err := os.ReadFile("invariants.md")
	require.NoError(t, err)
	contracts, err := parseLedger(string(raw))
	require.NoError(t, err)
	patches := recordedPatches(t)
	missing, err := os.ReadFile(filepath.Join("proofs", "MISSING"))
	require.NoError(t, err)
	undrawn, err := os.ReadFile(filepath.Join("proofs", "UNDRAWN"))
	require.NoError(t, err)
	require.Empty(t, checkProofs(contracts, patches, readMissing(string(missing)), readMissing(string(undrawn))))
}

func TestProofCheckerCatchesGaps(t *testing.T) {
	contracts, err := parseLedger(`## LOG-001 — proved
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-002 — neither proved nor listed
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-003 — proved and still listed
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-004 — listed, not proved
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-005 — proposed
Status: Proposed

## LOG-006 — proved, one drawn
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-007 — proved, undrawn and listed
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists

## LOG-008 — proved, drawn, and still listed undrawn
Status: Current
Evidence: docs/docs_test.go TestInvariantLedgerEvidenceExists
`)
	require.NoError(t, err)
	missing := readMissing("# comment\nLOG-003 a note\nLOG-004   # why\nLOG-005\nLOG-999\n")
	undrawn := readMissing("LOG-007 SQL only\nLOG-008 stale\nLOG-998 gone\n")
	problems := checkProofs(contracts, []string{"LOG-001-1.patch", "LOG-003-2.patch", "LOG-005-1.patch", "log.patch",
		"LOG-006-1.patch", "LOG-006-g1.patch", "LOG-007-1.patch", "LOG-008-1.patch", "LOG-008-g1.patch", "LOG-001-x1.patch"}, missing, undrawn)
	joined := strings.Join(problems, "\n")
	require.Len(t, problems, 10, "%q", problems)
	for _, want := range []string{
		"LOG-001: needs a mutation drawn by a tool",
		"LOG-008: has a drawn mutation now; take it out of docs/proofs/UNDRAWN",
		"UNDRAWN: LOG-998 is not a Current contract",
		"LOG-001-x1.patch: a mutation is named",
		"LOG-002: a Current contract needs a mutation",
		"LOG-003: has a mutation now",
		"LOG-005-1.patch: LOG-005 is not a Current contract",
		"log.patch: a mutation is named",
		"MISSING: LOG-005 is not a Current contract",
		"MISSING: LOG-999 is not a Current contract",
	} {
		require.Contains(t, joined, want)
	}
}

// patchesThatDoNotApply names each patch in dir/docs/proofs that git apply
// --check refuses against the tree at dir, with git's reason. A patch
// that no longer applies is reported "broken" by make proofs only after
// every other patch has run; this says so in seconds, in make test.
func patchesThatDoNotApply(t *testing.T, dir string, patches []string) []string {
	t.Helper()
	var problems []string
	for _, p := range patches {
		cmd := exec.Command("git", "apply", "--check", filepath.Join("docs", "proofs", p))
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			problems = append(problems, fmt.Sprintf("docs/proofs/%s no longer applies (rewrite it against the code, or delete a drawn one and run go run ./cmd/pact-mutants -draw ID): %s", p, strings.TrimSpace(string(out))))
		}
	}
	return problems
}

// Every recorded mutation applies to the tree as it is: the code a patch
// mutates was edited since it was written, and its contract's proof would
// otherwise be lost until make proofs ends (docs/proofs/README.md).
func TestEveryMutationAppliesToTheTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: make proofs, which needs it too, checks the patches")
	}
	patches := recordedPatches(t)
	require.NotEmpty(t, patches)
	require.Empty(t, patchesThatDoNotApply(t, "..", patches))
}

// The check can fail: a patch whose context the tree does not hold is named.
func TestPatchCheckerCatchesAPatchThatNoLongerApplies(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs", "proofs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "code.go"), []byte("package code\n\nconst answer = 42\n"), 0o644))
	applies := "--- a/code.go\n+++ b/code.go\n@@ -3 +3 @@\n-const answer = 42\n+const answer = 41\n"
	stale := "--- a/code.go\n+++ b/code.go\n@@ -3 +3 @@\n-const answer = 7\n+const answer = 8\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "proofs", "LOG-001-1.patch"), []byte(applies), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "proofs", "LOG-001-g1.patch"), []byte(stale), 0o644))
	problems := patchesThatDoNotApply(t, dir, []string{"LOG-001-1.patch", "LOG-001-g1.patch"})
	require.Len(t, problems, 1)
	require.Contains(t, problems[0], "docs/proofs/LOG-001-g1.patch no longer applies")
}
