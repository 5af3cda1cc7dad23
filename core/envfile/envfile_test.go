package envfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseEnvReadsWhatPactConnectWrites: values quoted the way
// pact-connect's shellQuote quotes them (docs/pact-connect.md) read back
// as they were.
func TestParseEnvReadsWhatPactConnectWrites(t *testing.T) {
	got, err := Parse(`# written by pact-connect
PACT_URL=https://board.example.com
export PACT_TOKEN='pact_a b'
PACT_AGENT_ID=runner-web   # a comment
PACT_RUNNER_SCHEDULE='[{"at": "07:30", "title": "It'"'"'s web"}]'
DATABASE_URL="postgres://u:p\$w@db/x"
PACT_RUNNER_NOTE='two
lines'
EMPTY=
`)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"PACT_URL": "https://board.example.com", "PACT_TOKEN": "pact_a b", "PACT_AGENT_ID": "runner-web",
		"PACT_RUNNER_SCHEDULE": `[{"at": "07:30", "title": "It's web"}]`, "DATABASE_URL": "postgres://u:p$w@db/x",
		"PACT_RUNNER_NOTE": "two\nlines", "EMPTY": "",
	}, got)
	for _, bad := range []string{"NOEQUALS\n", "1X=y\n", "A='open\n", "A=b c\n"} {
		_, err := Parse(bad)
		require.Error(t, err, bad)
	}
}

// Each rule of Parse, one case each: what a key may be, each quoting form
// and its escapes, what may follow a value, and the line a refusal names
// (counted across values that span lines, in either quote).
func TestParseEachRule(t *testing.T) {
	for _, c := range []struct{ in, key, want string }{
		{"A=b", "A", "b"},
		{"Z=b", "Z", "b"},
		{"a=b", "a", "b"},
		{"z=b", "z", "b"},
		{"_=b", "_", "b"},
		{"X0=b", "X0", "b"},
		{"X9=b", "X9", "b"},
		{"A_b9z=b", "A_b9z", "b"},
		{"A=''", "A", ""},
		{`A=""`, "A", ""},
		{"A='x'y'z'", "A", "xyz"},
		{`A="a\"b"`, "A", `a"b`},
		{`A="a\\b"`, "A", `a\b`},
		{`A="a\$b"`, "A", `a$b`},
		{"A=\"a\\`b\"", "A", "a`b"},
		{`A="a\nb"`, "A", `a\nb`},
		{`A=a\ b`, "A", "a b"},
		{`A=a\'b`, "A", "a'b"},
		{`A=ab\`, "A", `ab\`},
		{"A=b\t# note", "A", "b"},
		{"A=b \r\n", "A", "b"},
		{"\t export A=b", "A", "b"},
		{"# A=x\nA=b", "A", "b"},
		{"A=x\nA=b", "A", "b"},
	} {
		got, err := Parse(c.in)
		require.NoError(t, err, "%q", c.in)
		require.Equal(t, map[string]string{c.key: c.want}, got, "%q", c.in)
	}
	for _, c := range []struct{ in, err string }{
		{"=b", "line 1: not a KEY=value line"},
		{"A\n=b", "line 1: not a KEY=value line"},
		{"@=b", "line 1: not a KEY=value line"},
		{"[=b", "line 1: not a KEY=value line"},
		{"`=b", "line 1: not a KEY=value line"},
		{"{=b", "line 1: not a KEY=value line"},
		{"/=b", "line 1: not a KEY=value line"},
		{":=b", "line 1: not a KEY=value line"},
		{"0=b", "line 1: not a KEY=value line"},
		{"9A=b", "line 1: not a KEY=value line"},
		{"A-B=b", "line 1: not a KEY=value line"},
		{"\n\nA=b\nB", "line 4: not a KEY=value line"},
		{"A='x\ny'\nB", "line 3: not a KEY=value line"},
		{"A=\"x\ny\"\nB", "line 3: not a KEY=value line"},
		{"A='x\ny\nB", "line 1: A has an unclosed quote"},
		{"A=\"x\ny\nB", "line 3: A has an unclosed quote"},
		{"A=\"x\\\"", "line 1: A has an unclosed quote"},
		{"A=\"x\\", "line 1: A has an unclosed quote"},
		{"A='x\n'\nB", "line 3: not a KEY=value line"},
		{"A=b c", "line 1: A: unexpected text after the value"},
		{"A='b' c", "line 1: A: unexpected text after the value"},
		{"A=b\t\rc", "line 1: A: unexpected text after the value"},
	} {
		_, err := Parse(c.in)
		require.EqualError(t, err, c.err, "%q", c.in)
	}
}

// Read names the file in a refusal, and a missing file is an error.
func TestReadNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.env"), filepath.Join(dir, "bad.env")
	require.NoError(t, os.WriteFile(good, []byte("export A='b'\n"), 0o600))
	require.NoError(t, os.WriteFile(bad, []byte("A=b\nnope\n"), 0o600))
	got, err := Read(good)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"A": "b"}, got)
	_, err = Read(bad)
	require.EqualError(t, err, bad+": line 2: not a KEY=value line")
	_, err = Read(filepath.Join(dir, "missing.env"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
