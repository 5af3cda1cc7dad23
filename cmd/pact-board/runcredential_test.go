package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// TestARunCredentialCallsOnlyItsToolsUnderItsMandate, on the board with
// every module: tools/list shows a run's session exactly the tools its
// credential names; every other tool of the registry is refused
// (forbidden) and the refusal logged; calls act under the credential's
// mandate, named or not, and another mandate is refused; the
// never-granted tools are withheld whatever the list asks; resources are
// neither listed nor read; the pact stream refuses the token
// (docs/invariants.md RUN-001).
func TestARunCredentialCallsOnlyItsToolsUnderItsMandate(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	root := roots["code-web"]
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) (errs.Code, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		require.NoError(t, err, tool)
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError {
			return "", text
		}
		var r struct {
			Error errs.Code `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(text), &r), text)
		return r.Error, text
	}
	outOf := func(text string) map[string]any {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &v), text)
		return v
	}
	_, text := call(cs, "pact_post", map[string]any{"project_id": "web", "title": "Brief", "mandate_id": root})
	task := outOf(text)["task_id"].(string)
	code, text := call(cs, "pact_claim", map[string]any{"task_id": task, "mandate_id": root})
	require.Empty(t, code, text)
	asked := []any{"pact_whoami", "pact_list", "pact_note", "pact_post", "pact_claim", "pact_report", "pact_defer",
		"pact_revoke", "pact_run_credential"}
	code, text = call(cs, "pact_run_credential", map[string]any{"task_id": task, "mandate_id": root, "tools": asked, "seconds": 600})
	require.Empty(t, code, text)
	got := outOf(text)
	require.Equal(t, []any{"pact_whoami", "pact_list", "pact_note", "pact_post"}, got["tools"])
	require.Equal(t, []any{"pact_claim", "pact_report", "pact_defer", "pact_revoke", "pact_run_credential"}, got["withheld"])
	token := got["token"].(string)
	require.True(t, strings.HasPrefix(token, "pact_run_"), token)
	count := func(q string, args ...any) int {
		var n int
		require.NoError(t, a.d.NewRaw(q, args...).Scan(ctx, &n))
		return n
	}
	require.Zero(t, count(`SELECT count(*) FROM payloads WHERE content::text LIKE ?`, "%"+token[len("pact_run_"):]+"%"),
		"the token is never logged")

	c := mcp.NewClient(&mcp.Implementation{Name: "run", Version: "1"}, nil)
	run, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.URL + "/mcp/a/code-web",
		HTTPClient: &http.Client{Transport: withToken{token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer run.Close()
	listed, err := run.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range listed.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	require.Equal(t, []string{"pact_list", "pact_note", "pact_post", "pact_whoami"}, names)

	granted := map[string]bool{"pact_whoami": true, "pact_list": true, "pact_note": true, "pact_post": true}
	forbidden := func(tool string) int {
		return count(`SELECT count(*) FROM entries WHERE action = ? AND agent_id = 'code-web' AND outcome = 'forbidden'`, tool)
	}
	refused := 0
	for _, tool := range a.k.Tools().List() { // the population: every registered tool
		if granted[tool.Name] {
			continue
		}
		before := forbidden(tool.Name)
		code, text := call(run, tool.Name, map[string]any{})
		require.Equal(t, errs.Forbidden, code, "%s: %s", tool.Name, text)
		require.Contains(t, text, "this run's credential may call only", tool.Name)
		require.Equal(t, before+1, forbidden(tool.Name), "%s: the refusal is logged", tool.Name)
		refused++
	}
	require.Equal(t, len(a.k.Tools().List())-len(granted), refused)

	// Under its mandate: filled in when left out, refused when another.
	code, text = call(run, "pact_list", map[string]any{"filter": "all"})
	require.Empty(t, code, text)
	require.Contains(t, text, task)
	code, text = call(run, "pact_list", map[string]any{"mandate_id": roots["code-api"]})
	require.Equal(t, errs.Forbidden, code, text)
	require.Contains(t, text, root)
	code, text = call(run, "pact_note", map[string]any{"project_id": "web", "mandate_id": root})
	require.Empty(t, code, text)

	res, err := run.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, res.ResourceTemplates)
	all, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, all.ResourceTemplates, "the agent's own credential lists them")
	_, err = run.ReadResource(ctx, &mcp.ReadResourceParams{URI: "pact://projects/web/context"})
	require.ErrorContains(t, err, "reads no resources")

	req, _ := http.NewRequest(http.MethodGet, a.URL+"/pacts/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the pact stream takes no run credential")
}
