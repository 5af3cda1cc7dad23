package main

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
)

// With the embedded default, start-up prints a one-time console link for
// the first owner, a new one each start, stored only as a hash; with
// PACT_CONSOLE_LOCAL_SIGNIN=off (the default with DATABASE_URL) it prints
// nothing.
func TestConsoleLinkIsPrintedOnlyWhereAllowed(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	ident := identity.NewService(d, ledger.New(nil), nil)
	var setup bytes.Buffer
	require.NoError(t, firstRun(ctx, d, ident, peopleOn(d, ident), "http://127.0.0.1:8787", &setup))

	load := func(env map[string]string) *boot.Config {
		cfg, err := boot.Load(func(k string) string { return env[k] })
		require.NoError(t, err)
		return cfg
	}
	link := regexp.MustCompile(`Console: http://127\.0\.0\.1:8787/console/auth/local\?code=([A-Za-z0-9_-]{43})\n`)
	var codes []string
	for range 2 {
		var out bytes.Buffer
		require.NoError(t, consoleLink(ctx, load(nil), d, &out))
		m := link.FindStringSubmatch(out.String())
		require.NotNil(t, m, out.String())
		codes = append(codes, m[1])
		var n int
		require.NoError(t, d.NewRaw(`SELECT count(*) FROM console_codes WHERE hash = ? AND human_id = 'owner'`,
			identity.HashToken(m[1])).Scan(ctx, &n))
		require.Equal(t, 1, n, "the code is kept as its hash, for the first owner")
	}
	require.NotEqual(t, codes[0], codes[1])

	for _, env := range []map[string]string{{"PACT_CONSOLE_LOCAL_SIGNIN": "off"},
		{"DATABASE_URL": "postgres://elsewhere/pact"}, {"PACT_ROLE": "admin"}} {
		var out bytes.Buffer
		require.NoError(t, consoleLink(ctx, load(env), d, &out))
		require.Empty(t, out.String(), env)
	}
}

// Without a sign-in provider the start log says what a person can do now:
// sign in with the console's local link when local sign-in is on, or what
// to set when nobody can sign in; never that every call is refused while
// the console works (issue 31).
func TestTheStartLogSaysHowPeopleSignInWithoutAProvider(t *testing.T) {
	for local, says := range map[string]string{"on": "sign in to the console with the one-time local link",
		"off": "nobody can sign in yet; set PACT_AUTH_ISSUER"} {
		_, logs, stop := startBoard(t, map[string]string{"DATABASE_URL": pgtest.NewDSN(t), "PACT_CONSOLE_LOCAL_SIGNIN": local})
		require.NoError(t, stop())
		require.Contains(t, logs.String(), says, local)
		require.NotContains(t, logs.String(), "refuses every call", local)
	}
}
