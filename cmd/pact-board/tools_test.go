package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// toolsFile is the committed tools/list answer.
var toolsFile = filepath.Join("..", "..", "docs", "mcp-tools.json")

// toolAgents signs ana in and registers two code agents of project web on
// a's board, returning MCP sessions of the first and the agents' root
// mandates.
func (a *adminBoard) toolAgents(t testing.TB) (*mcp.ClientSession, map[string]string) {
	t.Helper()
	ctx := context.Background()
	_, err := a.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = a.ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	roots, tokens := map[string]string{}, map[string]string{}
	for _, id := range []string{"code-web", "code-api"} {
		delegations := 3
		r, err := a.RegisterAgent("ana", kerneltest.AgentInput{ID: id, Client: "code", Projects: []string{"web"},
			Delegations: &delegations, Scope: []string{"task.read@project:web", "task.post@project:web", "task.work@project:web",
				"context.write@project:web", "pact.read@project:web", "pact.write@project:web"}})
		require.NoError(t, err)
		roots[id], tokens[id] = r.RootMandateID.String(), r.Token
	}
	// A pact of code-api's with a seat waiting for code-web, for join_pact.
	args, _ := json.Marshal(map[string]any{"mandate_id": roots["code-api"], "project_id": "web", "name": "Waiting",
		"purpose": "A seat for code-web", "prefix": "A", "invite": []any{map[string]any{"key": "@code-web", "prefix": "W"}}})
	out, err := a.k.Tools().Call(ctx, "code-api", "create_pact", args)
	require.NoError(t, err)
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	var created struct {
		PactID string `json:"pact_id"`
	}
	require.NoError(t, json.Unmarshal(raw, &created))
	roots[waitingPact] = created.PactID
	c := mcp.NewClient(&mcp.Implementation{Name: "tools-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.URL + "/mcp/a/code-web",
		HTTPClient: &http.Client{Transport: withToken{tokens["code-web"]}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, roots
}

// servedTools is the tools of tools/list as a real MCP client receives
// them, in the order served (by name), indented as the committed file is;
// the answer's other fields (the server's version among them) are left out.
func servedTools(t *testing.T, cs *mcp.ClientSession) []byte {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	out, err := json.MarshalIndent(struct {
		Tools []*mcp.Tool `json:"tools"`
	}{res.Tools}, "", "  ")
	require.NoError(t, err)
	return append(out, '\n')
}

// TestMCPToolsDocumentIsCommitted fails when docs/mcp-tools.json is not the
// tools/list the board serves; go test ./cmd/pact-board -run
// MCPToolsDocumentIsCommitted -update rewrites it.
func TestMCPToolsDocumentIsCommitted(t *testing.T) {
	cs, _ := newAdminBoard(t).toolAgents(t)
	served := servedTools(t, cs)
	if *update {
		require.NoError(t, os.WriteFile(toolsFile, served, 0o644))
	}
	committed, err := os.ReadFile(toolsFile)
	require.NoError(t, err)
	require.Equal(t, string(committed), string(served),
		"docs/mcp-tools.json is stale: run go test ./cmd/pact-board -run MCPToolsDocumentIsCommitted -update")
}

// TestEveryToolAnswersWithinItsOutputSchema calls every tool in the
// registry over MCP at least once with success and requires its structured
// content to be its text and to validate against the output schema
// tools/list declares for it (docs/invariants.md TOOL-001).
func TestEveryToolAnswersWithinItsOutputSchema(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		require.NotNil(t, tool.OutputSchema, "%s declares no output schema", tool.Name)
		raw, err := json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(raw, &s))
		schemas[tool.Name], err = s.Resolve(nil)
		require.NoError(t, err, tool.Name)
	}
	answered := map[string]int{}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		text := res.Content[0].(*mcp.TextContent).Text
		require.False(t, res.IsError, "%s: %s", name, text)
		structured, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.JSONEq(t, text, string(structured), name)
		var v map[string]any
		require.NoError(t, json.Unmarshal(structured, &v))
		require.NotNil(t, schemas[name], "%s is not in tools/list", name)
		require.NoError(t, schemas[name].Validate(v), "%s: %s", name, text)
		answered[name]++
		return v
	}
	callEveryTool(roots, call)
	for _, tool := range a.k.Tools().List() {
		require.NotNil(t, tool.Output, "%s declares no output schema", tool.Name)
		require.Positive(t, answered[tool.Name], "%s was never called: add it to this test", tool.Name)
	}
}

// callEveryTool is a short session that calls every tool of the board with
// success at least once, through call.
func callEveryTool(roots map[string]string, call func(name string, args map[string]any) map[string]any) {
	root := roots["code-web"]
	call("pact_whoami", nil)
	call("pact_note", map[string]any{"project_id": "web", "mandate_id": root, "key": "conventions", "body": "Tabs."})
	call("pact_note", map[string]any{"project_id": "web", "mandate_id": root})
	call("pact_note", map[string]any{"project_id": "web", "mandate_id": root, "key": "conventions"})
	task := call("pact_post", map[string]any{"project_id": "web", "title": "Fix the header", "mandate_id": root})["task_id"]
	delegated := call("pact_post", map[string]any{"project_id": "web", "title": "Write tests", "mandate_id": root,
		"delegate_to": "code-api"})["delegated_mandate_id"]
	call("pact_list", map[string]any{"mandate_id": root, "filter": "all"})
	call("pact_claim", map[string]any{"task_id": task, "mandate_id": root})
	call("pact_run_credential", map[string]any{"task_id": task, "mandate_id": root, "tools": []any{"pact_whoami", "pact_list"},
		"seconds": 60})
	call("pact_message", map[string]any{"task_id": task, "mandate_id": root, "to": "human", "body": "Which header?"})
	call("pact_message", map[string]any{"task_id": task, "mandate_id": root})
	call("pact_report", map[string]any{"task_id": task, "mandate_id": root, "status": "working"})
	call("pact_report", map[string]any{"task_id": task, "mandate_id": root, "status": "completed",
		"result": "## Handoff\n- Done: the header"})
	other := call("pact_post", map[string]any{"project_id": "web", "title": "Deploy", "mandate_id": root})["task_id"]
	call("pact_defer", map[string]any{"task_id": other, "mandate_id": root, "reason": "A person deploys."})
	asked := call("pact_post", map[string]any{"project_id": "web", "title": "Pick the font", "mandate_id": root})["task_id"]
	call("pact_claim", map[string]any{"task_id": asked, "mandate_id": root})
	call("pact_report", map[string]any{"task_id": asked, "mandate_id": root, "status": "input_required", "result": "Serif?"})
	call("pact_reply", map[string]any{"task_id": asked, "mandate_id": root, "reply": "Sans."})
	call("pact_list", map[string]any{"mandate_id": root, "filter": "all"}) // now with a deferred task
	withdrawn := call("pact_post", map[string]any{"project_id": "web", "title": "Rename the button", "mandate_id": root,
		"delegate_to": "code-api"})["task_id"]
	call("pact_cancel", map[string]any{"task_id": withdrawn, "mandate_id": root, "reason": "Not needed after all."})
	call("pact_revoke", map[string]any{"mandate_id": delegated})
	call("pact_wait", map[string]any{"mandate_id": root, "seconds": 0})
	call("pact_events", map[string]any{"mandate_id": root, "seconds": 0})
	callEveryPactTool(roots, call)
}

// waitingPact is the key, in the roots toolAgents returns, of a pact with a
// seat waiting for code-web.
const waitingPact = "pact:waiting"

// callEveryPactTool is callEveryTool's part for Agent Pacts: a pact of
// code-web's own, every write, both reads, and joining the pact waiting
// for it when roots names one.
func callEveryPactTool(roots map[string]string, call func(name string, args map[string]any) map[string]any) {
	root := roots["code-web"]
	pact := call("create_pact", map[string]any{"mandate_id": root, "project_id": "web", "name": "Launch",
		"purpose": "Ship the launch page", "rules": "Be brief.", "prefix": "W"})["pact_id"]
	in := func(args map[string]any) map[string]any {
		args["mandate_id"], args["pact_id"] = root, pact
		return args
	}
	call("list_pacts", map[string]any{"mandate_id": root})
	call("set_pact_delivery", map[string]any{"mandate_id": root, "mode": "stream"})
	call("invite_to_pact", in(map[string]any{"key": "@code-api", "prefix": "A"}))
	call("post_pact_message", in(map[string]any{"body": "I take the copy."}))
	call("post_pact_message", in(map[string]any{"body": "Done.", "reply_to": "W-001", "mark": "done"}))
	call("update_pact_section", in(map[string]any{"body": "Copy: draft 1"}))
	call("update_pact_handshake", in(map[string]any{"handshake": "I check in every hour."}))
	call("raise_pact_decision", in(map[string]any{"question": "Blue or green?", "options": []any{"Blue", "Green"}}))
	call("set_helper_paused", in(map[string]any{"key": "@code-api", "paused": true}))
	call("get_pact", in(map[string]any{}))
	call("get_pact", in(map[string]any{"since": 1}))
	if waiting, ok := roots[waitingPact]; ok {
		call("join_pact", map[string]any{"mandate_id": root, "pact_id": waiting})
	}
}
