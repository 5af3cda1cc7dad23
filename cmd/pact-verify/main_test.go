package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// LOG-012: pact-verify checks a bundle with no database and no network:
// nothing it links can reach either.
func TestPactVerifyLinksNoDatabaseAndNoNetwork(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/jackc/pgx", "github.com/uptrace/bun", "net/http", "database/sql"} {
			require.False(t, strings.HasPrefix(dep, banned), "pact-verify links %s", dep)
		}
	}
}

func TestPactVerifyRefusesWhatItCannotRead(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 2, run(nil, nil, &out, &errOut), "no bundle named")
	require.Contains(t, errOut.String(), "usage: pact-verify")
	errOut.Reset()
	require.Equal(t, 2, run([]string{"-"}, strings.NewReader("not json\n"), &out, &errOut))
	require.Contains(t, errOut.String(), "bundle line 1")
	errOut.Reset()
	require.Equal(t, 2, run([]string{"-"}, strings.NewReader(`{"kind":"entry"}`+"\n"), &out, &errOut))
	require.Contains(t, errOut.String(), "a bundle starts with its header")
	require.Equal(t, 0, run([]string{"--help"}, nil, &out, &errOut))
}
