package pacts_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mcpserve/tsclient"
	"github.com/pactboard/pact/modules/pacts"
)

// A whole two-agent job over real MCP clients: wanda on the Go SDK's
// client, bram on the official TypeScript SDK's, with a decision a person
// answers and bram reads word for word (PACT-007).
func TestATwoAgentJobOverTheGoAndTypeScriptClients(t *testing.T) {
	f := setup(t)
	out, err := f.as("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Launch",
		"purpose": "Ship the launch page", "rules": "Reply to numbers; never rewrite.", "prefix": "W",
		"invite": []any{map[string]any{"key": "@bram", "prefix": "B", "display_name": "Bram"}}})
	require.NoError(t, err)
	id := out["pact_id"].(string)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "I take the copy; you take the layout?"})
	require.NoError(t, err)

	bram := func(calls ...tsclient.Call) []map[string]any {
		t.Helper()
		for i := range calls {
			calls[i].Args["mandate_id"] = f.roots["bram"]
		}
		res := tsclient.Run(t, f.URL+"/mcp/a/bram", f.Token("bram"), calls...)
		var out []map[string]any
		for i, r := range res.Results {
			require.False(t, r.IsError, "%s: %v", calls[i].Tool, r.Content)
			var text map[string]any
			require.NoError(t, json.Unmarshal([]byte(r.Content[0].Text), &text))
			require.Equal(t, text, r.StructuredContent, "%s: the text and the structured content agree", calls[i].Tool)
			out = append(out, r.StructuredContent)
		}
		return out
	}
	got := bram(
		tsclient.Call{Tool: pacts.ToolList, Args: map[string]any{}},
		tsclient.Call{Tool: pacts.ToolJoin, Args: map[string]any{"pact_id": id}},
		tsclient.Call{Tool: pacts.ToolGet, Args: map[string]any{"pact_id": id}},
		tsclient.Call{Tool: pacts.ToolHandshake, Args: map[string]any{"pact_id": id, "handshake": "I check in hourly."}},
		tsclient.Call{Tool: pacts.ToolPost, Args: map[string]any{"pact_id": id, "body": "Yes, the layout is mine.", "reply_to": "W-001"}},
		tsclient.Call{Tool: pacts.ToolUpdateSection, Args: map[string]any{"pact_id": id, "body": "Layout: two columns"}},
	)
	listed := got[0]["pacts"].([]any)
	require.Len(t, listed, 1)
	require.Equal(t, "invited", listed[0].(map[string]any)["your_state"])
	read := got[2]
	require.Equal(t, "Reply to numbers; never rewrite.", read["rules"])
	require.Len(t, read["messages"], 1)
	require.Equal(t, "B-001", got[4]["number"])
	cursor := read["cursor"]

	// wanda's next write carries everything bram did since her last one.
	mine, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Then we agree.", "reply_to": "B-001"})
	require.NoError(t, err)
	require.Equal(t, "W-002", mine["number"])
	var refs []string
	for _, n := range mine["since_your_last_write"].([]any) {
		refs = append(refs, n.(map[string]any)["kind"].(string))
	}
	require.Equal(t, []string{"seat", "handshake", "message", "section"}, refs, "bram's join, handshake, B-001 and zone")

	got = bram(
		tsclient.Call{Tool: pacts.ToolGet, Args: map[string]any{"pact_id": id, "since": cursor}},
		tsclient.Call{Tool: pacts.ToolRaise, Args: map[string]any{"pact_id": id, "question": "Launch on Monday or Tuesday?",
			"options": []any{"Monday", "Tuesday"}}},
	)
	var numbers []string
	for _, m := range got[0]["messages"].([]any) {
		numbers = append(numbers, m.(map[string]any)["number"].(string))
	}
	require.Equal(t, []string{"B-001", "W-002"}, numbers, "only what is new since the cursor")
	decision := got[1]["decision_id"].(string)

	// Only a person answers; bram reads the ruling word for word, and then
	// it is final.
	ruling := "  Tuesday — after the review 🚀\nNot before.  "
	ok(t, f.adm("ana", "PUT", "/pact-decisions/"+decision+"/answer", map[string]any{"answer": ruling}))
	got = bram(tsclient.Call{Tool: pacts.ToolGet, Args: map[string]any{"pact_id": id}})
	decisions := got[0]["decisions"].([]any)
	require.Len(t, decisions, 1)
	require.Equal(t, ruling, decisions[0].(map[string]any)["answer"])
	refused(t, f.adm("ana", "PUT", "/pact-decisions/"+decision+"/answer", map[string]any{"choice": "Monday"}),
		http.StatusForbidden, "forbidden")
	f.VerifyLog()
}
