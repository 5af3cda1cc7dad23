package audit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
)

// The log is named by the public URL's host: a URL without one is refused,
// naming the variable to fix, before any checkpoint is signed under no name.
func TestLogKeysNeedThePublicURLsHost(t *testing.T) {
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	_, _, err = logKeys(keys, "/no/host")
	require.ErrorContains(t, err, "PACT_PUBLIC_URL")
	cp, vkeys, err := logKeys(keys, "https://board.example")
	require.NoError(t, err)
	require.Equal(t, "board.example/pact-log/", cp.Origin)
	require.Len(t, vkeys, 1)
}
