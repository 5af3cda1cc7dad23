package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// The front door (issue 32): README.md is short and points into docs/,
// docs/README.md indexes every page, and what they say about the tree,
// the variables and the commands is read back from the code.

// readmeMaxLines is how long the front door may grow.
const readmeMaxLines = 150

func TestReadmeIsAFrontDoor(t *testing.T) {
	readme := readFile(t, "../README.md")
	lines := strings.Count(readme, "\n")
	require.LessOrEqual(t, lines, readmeMaxLines,
		"README.md is the front door: what the product is, how to start it and where to read on; move the rest into docs/")
	for _, want := range []string{"make run", "make test", ".mcp.json", "/console/auth/local?code=", "docs/README.md",
		"CONTRIBUTING.md", "LICENSE"} {
		require.Contains(t, readme, want)
	}
}

// The README's Layout table has a row for every top-level directory, and
// the rows of core/, modules/, cmd/, plugins/ and sdk/ name each directory
// in them, so a new package or command cannot be left out.
func TestReadmeLayoutNamesEveryDirectory(t *testing.T) {
	rows := tableRows(readFile(t, "../README.md"), "| Path | What |")
	require.NotEmpty(t, rows, "README.md has no Layout table (| Path | What |)")
	row := map[string]string{}
	for _, r := range rows {
		require.Len(t, r, 2, "row %q", r)
		row[strings.Trim(r[0], "`")] = r[1]
	}
	top := map[string]bool{}
	children := map[string]map[string]bool{}
	for _, f := range tracked(t) {
		parts := strings.Split(f, "/")
		if len(parts) < 2 || strings.HasPrefix(parts[0], ".") {
			continue
		}
		top[parts[0]] = true
		if len(parts) >= 3 {
			if children[parts[0]] == nil {
				children[parts[0]] = map[string]bool{}
			}
			children[parts[0]][parts[1]] = true
		}
	}
	require.Greater(t, len(top), 5)
	var problems []string
	for dir := range top {
		if _, ok := row[dir+"/"]; !ok {
			problems = append(problems, "no Layout row for "+dir+"/")
		}
	}
	for _, parent := range []string{"core", "modules", "cmd", "plugins", "sdk"} {
		require.NotEmpty(t, children[parent], parent)
		for child := range children[parent] {
			text := row[parent+"/"]
			if !strings.Contains(text, "`"+child+"`") && !strings.Contains(text, "`"+child+"/") {
				problems = append(problems, "the Layout row of "+parent+"/ does not name "+child)
			}
		}
	}
	slices.Sort(problems)
	require.Empty(t, problems)
}

// mdLink matches a markdown link or image, capturing its target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// inlineCode matches a code span, whose text is not markup.
var inlineCode = regexp.MustCompile("`[^`\n]*`")

// prose returns text without its fenced code blocks and code spans: what
// a markdown renderer turns into links.
func prose(text string) string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, inlineCode.ReplaceAllString(line, "``"))
		}
	}
	return strings.Join(out, "\n")
}

// links returns the relative link targets of a markdown file's prose:
// no URL with a scheme.
func links(text string) []string {
	var out []string
	for _, m := range mdLink.FindAllStringSubmatch(prose(text), -1) {
		if regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`).MatchString(m[1]) {
			continue
		}
		out = append(out, m[1])
	}
	return out
}

// docsIndex is the newcomer's index of the documentation.
const docsIndex = "docs/README.md"

// docs/README.md links every page under docs/ (the proofs' and the specs'
// pages and the examples' READMEs included).
func TestDocsIndexLinksEveryPage(t *testing.T) {
	linked := map[string]bool{}
	for _, l := range links(readFile(t, "README.md")) {
		path, _, _ := strings.Cut(l, "#")
		linked[filepath.Clean(filepath.Join("docs", path))] = true
	}
	var missing []string
	for _, f := range tracked(t, "docs/*.md") {
		if f != docsIndex && !linked[f] {
			missing = append(missing, f)
		}
	}
	require.Empty(t, missing, "%s does not link these pages", docsIndex)
}

// docs/console.md links every screenshot the console's journeys write.
func TestEveryScreenshotIsLinked(t *testing.T) {
	linked := map[string]bool{}
	for _, l := range links(readFile(t, "console.md")) {
		linked[filepath.Clean(filepath.Join("docs", l))] = true
	}
	shots := tracked(t, "docs/console/*.png")
	require.NotEmpty(t, shots)
	for _, f := range shots {
		require.True(t, linked[f], "docs/console.md, \"Every page\", does not link %s", f)
	}
}

// slug is the anchor GitHub gives a heading: lower case, without the
// punctuation, spaces as hyphens.
func slug(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var mdHeading = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)

// anchors returns the anchors of a markdown file's headings; a repeated
// heading gets -1, -2, … as on GitHub.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := mdHeading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// linkProblems lists the links of the markdown file f (text) whose file
// is not in the repository, or whose #anchor is no heading of the page.
func linkProblems(f, text string, read func(string) (string, error)) []string {
	var problems []string
	for _, l := range links(text) {
		path, frag, _ := strings.Cut(l, "#")
		target := f
		if path != "" {
			target = filepath.Clean(filepath.Join(filepath.Dir(f), path))
		}
		body, err := read(target)
		if err != nil {
			problems = append(problems, f+": links "+l+", which is not in the repository")
			continue
		}
		if frag != "" && strings.HasSuffix(target, ".md") && !anchors(body)[frag] {
			problems = append(problems, f+": links "+l+", and "+target+" has no heading #"+frag)
		}
	}
	return problems
}

// Every relative link of every markdown file leads to a file of the
// repository and, with an #anchor, to one of its headings: moving a
// section cannot leave a link behind.
func TestRelativeLinksResolve(t *testing.T) {
	read := func(p string) (string, error) {
		st, err := os.Stat(filepath.Join("..", p))
		if err != nil {
			return "", err
		}
		if st.IsDir() || !strings.HasSuffix(p, ".md") {
			return "", nil
		}
		raw, err := os.ReadFile(filepath.Join("..", p))
		return string(raw), err
	}
	files := tracked(t, "*.md")
	require.Greater(t, len(files), 20)
	var problems []string
	for _, f := range files {
		text, err := read(f)
		require.NoError(t, err)
		problems = append(problems, linkProblems(f, text, read)...)
	}
	require.Empty(t, problems)
}

func TestLinkCheckerCatchesBadLinks(t *testing.T) {
	// Spelled in pieces, so this file cites no document that is not there.
	md := ".md"
	a, b := "docs/a"+md, "docs/b"+md
	pages := map[string]string{
		a: "# A page\n\n## Sign-in with OIDC\n\n## Sign-in with OIDC\n\n### 15. The console's link\n",
	}
	read := func(p string) (string, error) {
		if s, ok := pages[p]; ok {
			return s, nil
		}
		return "", os.ErrNotExist
	}
	good := "[a](a" + md + ") [b](a" + md + "#sign-in-with-oidc) [c](a" + md + "#sign-in-with-oidc-1) [d](#x) " +
		"[e](https://example.com/x" + md + ") `[f](nowhere" + md + ")`\n```\n[g](nowhere" + md + ")\n```\n" +
		"[h](a" + md + "#15-the-consoles-link)\n# X\n"
	pages[b] = good
	require.Empty(t, linkProblems(b, good, read))
	bad := "[a](nothere" + md + ") [b](a" + md + "#sign-in) [c](#y)\n# X\n"
	pages[b] = bad
	require.Len(t, linkProblems(b, bad, read), 3)
}

// makeTarget matches `make <target>` in a code span or at the start of a
// line of a code block.
var makeTarget = regexp.MustCompile("(?m)(?:`|^)make ([a-z][a-z-]*)")

// goTestRun matches a go test command that runs named tests of a package.
var goTestRun = regexp.MustCompile(`go test (\./[A-Za-z0-9_/.-]+)[^\n` + "`" + `]*? -run '?\^?(Test[A-Za-z0-9_]+)`)

// The commands the front door and CONTRIBUTING.md tell a person to run
// exist: each make target in the Makefile, and each test named with
// go test -run in its package.
func TestCommandsInTheFrontDoorExist(t *testing.T) {
	makefile := readFile(t, "../Makefile")
	var problems []string
	for _, f := range []string{"README.md", "CONTRIBUTING.md", docsIndex} {
		text := readFile(t, filepath.Join("..", f))
		for _, m := range makeTarget.FindAllStringSubmatch(text, -1) {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`).MatchString(makefile) {
				problems = append(problems, f+": the Makefile has no target "+m[1])
			}
		}
		for _, m := range goTestRun.FindAllStringSubmatch(text, -1) {
			dir := filepath.Join("..", m[1])
			tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
			found := false
			for _, tf := range tests {
				if strings.Contains(readFile(t, tf), "func "+m[2]+"(") {
					found = true
				}
			}
			if !found {
				problems = append(problems, f+": "+m[1]+" has no test "+m[2])
			}
		}
	}
	require.Empty(t, problems)
}
