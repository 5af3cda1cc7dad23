package redact

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// A rule's secret group is a secret only where it took part in the match
// and matched something: from the text's first byte on, never empty
// (secretsOf). No rule of the board's matches empty today; this guard keeps
// a later one from putting a Mark where the text had nothing.
func TestASecretIsWhatTheGroupMatchedAndNeverEmpty(t *testing.T) {
	rs := []rule{
		{re: regexp.MustCompile(`k(y*)`), secret: 1},  // may match empty
		{re: regexp.MustCompile(`(z+)|w`), secret: 1}, // may take no part
	}
	// "k" at 2 has an empty secret; "w" at 8 matched without its group.
	require.Equal(t, []span{{5, 7}, {0, 2}}, secretsOf("zzk kyy w", rs))
}
