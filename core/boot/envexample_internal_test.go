package boot

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite .env.example from the table of variables")

const envExample = "../../.env.example"

const envExampleHead = `# PACT Board: every environment variable pact-board reads, each with its default
# (docs/configuration.md has the same table). Every line is commented out: a
# variable left unset takes its default. Uncomment and set only what you change.
#
# Docker Compose: copy this file to .env beside compose.yaml and set
# PACT_SIGNING_KEY; compose.yaml hands .env to the board (docs/containers.md).
# ./bin/pact-board reads no file: export what you set in its environment.
#
# Written from core/boot's table by
#   go test ./core/boot -run TestEnvExampleIsCurrent -update
# which fails when this file is not what the table gives.
`

// envExampleText is .env.example as the table gives it: each variable's
// meaning, its default in words, and a commented-out assignment holding
// the default itself where it is a value one could write (the derived ones,
// such as "embedded", are left empty).
func envExampleText() string {
	var b strings.Builder
	b.WriteString(envExampleHead)
	for _, v := range vars() {
		b.WriteString("\n")
		for _, line := range wrap(v.Doc, 78) {
			b.WriteString("# " + line + "\n")
		}
		def := v.Default
		if def == "" {
			def = "unset"
		}
		b.WriteString("# Default: " + def + "\n")
		value := ""
		if v.def != "" && v.def == v.Default {
			value = v.def
		}
		b.WriteString("#" + v.Name + "=" + value + "\n")
	}
	return b.String()
}

// wrap breaks text into lines of at most width bytes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// .env.example is written from the same table as Load and --help, so a
// variable added to the board cannot be missing from it, and each default
// it shows is the one Load applies.
func TestEnvExampleIsCurrent(t *testing.T) {
	want := envExampleText()
	if *update {
		require.NoError(t, os.WriteFile(envExample, []byte(want), 0o644))
	}
	got, err := os.ReadFile(envExample)
	require.NoError(t, err)
	require.Equal(t, want, string(got),
		".env.example is stale: run go test ./core/boot -run TestEnvExampleIsCurrent -update")
	for _, v := range vars() {
		require.Contains(t, string(got), "\n#"+v.Name+"=", "%s is not in .env.example", v.Name)
	}
}

// A literal default in .env.example is what Load gives the variable unset:
// uncommenting a line as it stands changes nothing.
func TestEnvExampleDefaultsChangeNothing(t *testing.T) {
	unset, err := Load(func(string) string { return "" })
	require.NoError(t, err)
	given := map[string]string{}
	for _, v := range vars() {
		if v.def != "" && v.def == v.Default {
			given[v.Name] = v.def
		}
	}
	require.NotEmpty(t, given)
	set, err := Load(func(k string) string { return given[k] })
	require.NoError(t, err)
	require.Equal(t, unset, set)
}
