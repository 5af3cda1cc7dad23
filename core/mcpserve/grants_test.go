package mcpserve_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// runGrants provides the kernel's per-run credentials as a module that
// issues them would (modules/board does on the board): pact_run_live is
// code-web's, for test_echo only; the other tokens fail each in one way
// the transport must tell apart.
type runGrants struct{}

func (runGrants) Name() string { return "rungrants" }

func (runGrants) Register(h *kernel.Host) error {
	h.ProvideGrants(grantsFunc(func(agent, token string) (*kernel.Grant, error) {
		switch {
		case agent == "code-web" && token == "pact_run_live":
			return &kernel.Grant{Tools: []string{"test_echo"}, ExpiresAt: time.Now().Add(time.Hour)}, nil
		case token == "pact_run_forbidden":
			return nil, errs.E(errs.Forbidden, "this run's agent is paused")
		case token == "pact_run_reasoned":
			return nil, &errs.Error{Code: errs.Unauthorized, Message: "the run is over", Err: errors.New("task t-1 was reported")}
		case token == "pact_run_broken":
			return nil, errors.New("the grants table is on fire")
		}
		return nil, errs.E(errs.Unauthorized, "not a live per-run credential")
	}))
	return nil
}

type grantsFunc func(agent, token string) (*kernel.Grant, error)

func (f grantsFunc) VerifyGrant(_ context.Context, agent, token string) (*kernel.Grant, error) {
	return f(agent, token)
}

// A session opened with a per-run credential (docs/runner.md) is shown
// only what its grant lets it use: tools/list lists the grant's tools, and
// no resources; a call of another tool is refused. The agent's own token
// still lists everything.
func TestAPerRunCredentialSeesOnlyItsGrant(t *testing.T) {
	f := newFixtureWith(t, true, runGrants{})
	ctx := context.Background()
	run := f.connect(t, f.url("code-web"), "pact_run_live", "")
	tools, err := run.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1)
	require.Equal(t, "test_echo", tools.Tools[0].Name)
	resources, err := run.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, resources.Resources)
	templates, err := run.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, templates.ResourceTemplates)
	res, err := run.CallTool(ctx, &mcp.CallToolParams{Name: "test_echo", Arguments: map[string]any{"x": 1}})
	require.NoError(t, err)
	require.False(t, res.IsError, text(t, res))
	res, err = run.CallTool(ctx, &mcp.CallToolParams{Name: "test_greet", Arguments: map[string]any{"name": "ana"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, text(t, res), "this run's credential may call only test_echo")

	own := f.connect(t, f.url("code-web"), f.live, "")
	all, err := own.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Greater(t, len(all.Tools), 1, "the agent's own token lists every tool")
	ownTemplates, err := own.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, ownTemplates.ResourceTemplates)
}

// How a per-run credential's refusal is answered: not live, 401 with the
// challenge (the issuer's reason logged, never told); forbidden, 403; a
// failure of the board's, 500, logged as an error. None leaves an entry.
func TestAPerRunCredentialsRefusalsAreToldApart(t *testing.T) {
	f := newFixtureWith(t, true, runGrants{})
	initialize := rpcBody("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	for _, tc := range []struct {
		token, body string
		status      int
		logged      string
	}{
		{"pact_run_dead", `{"error":"unauthorized","message":"not a live per-run credential"}`, http.StatusUnauthorized, ""},
		{"pact_run_reasoned", `{"error":"unauthorized","message":"the run is over"}`, http.StatusUnauthorized, "task t-1 was reported"},
		{"pact_run_forbidden", `{"error":"forbidden","message":"this run's agent is paused"}`, http.StatusForbidden, ""},
		{"pact_run_broken", `{"error":"internal","message":"` + errs.Public(nil).Message + `"}`, http.StatusInternalServerError,
			"the grants table is on fire"},
	} {
		before := len(f.logs.String())
		resp, got := f.post(t, "/mcp/a/code-web", "Bearer "+tc.token, initialize)
		require.Equal(t, tc.status, resp.StatusCode, "%s: %s", tc.token, got)
		require.JSONEq(t, tc.body, got, tc.token)
		if tc.status == http.StatusUnauthorized {
			require.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`, tc.token)
		}
		logs := f.logs.String()[before:]
		if tc.logged == "" {
			require.NotContains(t, logs, tc.token[len("pact_run_"):], "%s: nothing to tell the operator", tc.token)
			continue
		}
		require.Contains(t, logs, tc.logged, tc.token)
		if tc.status == http.StatusInternalServerError {
			require.Contains(t, logs, "[ERROR]")
			require.Contains(t, logs, "cannot authenticate")
		} else {
			require.Contains(t, logs, "token refused")
		}
	}
	require.Empty(t, f.outcomes(t, "code-web"), "no refused credential left an entry")
}
