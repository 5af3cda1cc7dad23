package envfile

import (
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
