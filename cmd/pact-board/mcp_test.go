package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/pgtest"
)

// withToken adds an agent's bearer token to every request.
type withToken struct{ token string }

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestBoardServesMCPAndListensForEvents(t *testing.T) {
	dsn := pgtest.NewDSN(t)
	base, logs, stop := startBoard(t, map[string]string{"DATABASE_URL": dsn, "PACT_PUBLIC_URL": "https://board.test"})

	ctx := context.Background()
	d, err := db.Open(ctx, dsn)
	require.NoError(t, err)
	defer d.Close()
	const token = "pact_board-test-token"
	_, err = d.ExecContext(ctx, `
		INSERT INTO humans (id, org_id, name, role) VALUES ('ana', 'default', 'Ana', 'owner');
		INSERT INTO agents (id, org_id, owner, client) VALUES ('code-web', 'default', 'ana', 'code');
		INSERT INTO agent_tokens (token_hash, agent_id, expires_at) VALUES (?, 'code-web', now() + interval '1 day');`,
		identity.HashToken(token))
	require.NoError(t, err)

	req, _ := http.NewRequest(http.MethodPost, base+"/mcp/a/code-web", strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Equal(t, `Bearer resource_metadata="https://board.test/.well-known/oauth-protected-resource/mcp/a/code-web", scope="pact"`,
		resp.Header.Get("WWW-Authenticate"))

	c := mcp.NewClient(&mcp.Implementation{Name: "board-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp/a/code-web",
		HTTPClient: &http.Client{Transport: withToken{token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	require.Equal(t, "pact-board", cs.InitializeResult().ServerInfo.Name)
	_, err = cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.NoError(t, cs.Close())

	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "listening for events") },
		10*time.Second, 20*time.Millisecond, "the event hub runs as a worker")
	require.NoError(t, stop())
}
