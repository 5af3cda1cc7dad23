package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// citedDoc matches a document cited by path in a Go file or a document:
// docs/specs/behavior.md, docs/plugins.md, README.md.
var citedDoc = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.md)\b`)

// bareSpec matches a spec cited by its bare name, which would point at a
// document outside the repository (the project's shared reference).
var bareSpec = regexp.MustCompile(`(?:^|[^/\w-])((?:behavior|credential-formats|architecture-sketch|go-libraries|style-guide|agent-pacts|pact-board-README)\.md)`)

// Every document the code cites is in the repository: code comments cite
// docs/specs/…, never the project's shared reference outside it. The
// population is every Go file git tracks.
func TestCodeCitesOnlyDocumentsInTheRepository(t *testing.T) {
	out, err := exec.Command("git", "-C", "..", "ls-files", "*.go").Output()
	require.NoError(t, err)
	files := strings.Fields(string(out))
	require.Greater(t, len(files), 100, "git ls-files found too few Go files")
	var problems []string
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join("..", f))
		require.NoError(t, err)
		problems = append(problems, citationProblems(f, string(raw))...)
	}
	require.Empty(t, problems)
}

// citationProblems lists the citations in text (of file f) that name a
// document the repository does not hold. Test data under ../shared is
// read by tests, not cited, and test-vectors.md lives there.
func citationProblems(f, text string) []string {
	var problems []string
	for _, m := range bareSpec.FindAllStringSubmatch(text, -1) {
		problems = append(problems, f+": cites "+m[1]+" outside the repository; cite docs/specs/"+m[1])
	}
	for _, m := range citedDoc.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if !strings.Contains(p, "/") || strings.HasPrefix(p, "../") || strings.Contains(p, "shared/") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			problems = append(problems, f+": cites "+p+", which is not in the repository")
		}
	}
	return problems
}

func TestCitationCheckerCatchesOutsideSpecs(t *testing.T) {
	// Spelled in pieces, so this file does not cite what it tests.
	md := ".md"
	bad := "// per behavior" + md + " §6.0\n// see docs/specs/nothing-here" + md + "\n// see credential-formats" + md + " §2\n"
	good := "// per docs/specs/behavior.md §6.0 and docs/plugins.md\n"
	require.Len(t, citationProblems("x.go", bad), 3)
	require.Empty(t, citationProblems("y.go", good))
}
