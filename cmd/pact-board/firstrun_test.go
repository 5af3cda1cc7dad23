package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
)

// What `make run` prints on first start must connect a client: a URL, a
// live token of that agent, and a .mcp.json snippet carrying both. The
// second start creates nothing and prints no token.
func TestFirstRunSetsUpADemoBoardOnce(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	ident := identity.NewService(d, ledger.New(nil), nil)

	var out bytes.Buffer
	require.NoError(t, firstRun(ctx, d, ident, peopleOn(d, ident), "http://127.0.0.1:8787", &out))
	text := out.String()
	require.Contains(t, text, "Agent MCP URL: http://127.0.0.1:8787/mcp/a/code-demo")
	token := regexp.MustCompile(`pact_[A-Za-z0-9_-]{43}`).FindString(text)
	require.NotEmpty(t, token, text)
	ok, err := ident.AuthenticateAgent(ctx, d, "code-demo", token)
	require.NoError(t, err)
	require.True(t, ok, "the printed token is a live token of the printed agent")

	snippet := text[strings.Index(text, "{"):]
	var cfg struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	require.NoError(t, json.NewDecoder(strings.NewReader(snippet)).Decode(&cfg))
	require.Equal(t, "http", cfg.MCPServers["pact"].Type)
	require.Equal(t, "http://127.0.0.1:8787/mcp/a/code-demo", cfg.MCPServers["pact"].URL)
	require.Equal(t, "Bearer "+token, cfg.MCPServers["pact"].Headers["Authorization"])

	counts := func() [3]int {
		var c [3]int
		require.NoError(t, d.NewRaw(`SELECT (SELECT count(*) FROM humans), (SELECT count(*) FROM projects),
			(SELECT count(*) FROM agent_tokens)`).Scan(ctx, &c[0], &c[1], &c[2]))
		return c
	}
	before := counts()
	out.Reset()
	require.NoError(t, firstRun(ctx, d, ident, peopleOn(d, ident), "http://127.0.0.1:8787", &out))
	require.Equal(t, before, counts(), "a second start creates nothing")
	require.NotRegexp(t, `pact_[A-Za-z0-9_-]{43}`, out.String())
	require.Contains(t, out.String(), "token-issue code-demo --by owner")
	verifyAll(t, d)
}

func verifyAll(t *testing.T, d *db.DB) {
	vs, err := ledger.New(nil).VerifyAll(context.Background(), d, nil)
	require.NoError(t, err)
	for _, chains := range vs {
		for _, v := range chains {
			require.True(t, v.OK, "%s: %s", v.ChainKey, v.Reason)
		}
	}
}
