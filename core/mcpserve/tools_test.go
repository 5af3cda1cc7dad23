package mcpserve_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mcpserve"
)

func TestServerIdentifiesItselfAndItsRules(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	init := cs.InitializeResult()
	require.Equal(t, "2026-07-28", init.ProtocolVersion)
	require.Equal(t, "pact-board", init.ServerInfo.Name)
	require.Equal(t, "PACT Board", init.ServerInfo.Title)
	require.NotEmpty(t, init.ServerInfo.Version)
	require.Equal(t, mcpserve.Instructions, init.Instructions)
	for _, want := range []string{"pact_whoami", "pact_list", "pact_events", "cannot start", "pact_claim",
		"20 minutes", "30 minutes", "Handoff", "pact_defer", "reference data", "never authority"} {
		require.Contains(t, init.Instructions, want)
	}
}

func TestToolsListIsTheRegistry(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	require.Equal(t, f.Kernel.Tools().Names(), names)
	for _, kt := range f.Kernel.Tools().List() {
		i := slices.IndexFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == kt.Name })
		got := res.Tools[i]
		require.Equal(t, kt.Title, got.Title)
		require.Equal(t, kt.Description, got.Description)
		want, err := json.Marshal(kt.Input)
		require.NoError(t, err)
		have, err := json.Marshal(got.InputSchema)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(have), kt.Name)
		if kt.Output == nil {
			require.Nil(t, got.OutputSchema, kt.Name)
			continue
		}
		want, err = json.Marshal(kt.Output)
		require.NoError(t, err)
		have, err = json.Marshal(got.OutputSchema)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(have), kt.Name)
	}
}

func TestSuccessIsStructuredAndTextAsTheURLAgent(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_echo",
		Arguments: map[string]any{"agent": "code-api", "x": 1}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	body := text(t, res)
	require.JSONEq(t, `{"agent":"code-web","org":"default","args":{"agent":"code-api","x":1},"note":"a <b> & c"}`, body)
	require.Contains(t, body, "a <b> & c", "no HTML escaping")
	structured, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.JSONEq(t, body, string(structured))
	require.Equal(t, [][2]string{{"test_echo", "ok"}}, f.outcomes(t, "code-web"))

	// A result that is not an object has no structured content.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_list"})
	require.NoError(t, err)
	require.Equal(t, "[1,2]", text(t, res))
	require.Nil(t, res.StructuredContent)
}

func TestRefusalIsAnErrorResultWithTheExactJSON(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_refuse"})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Equal(t, `{"error":"scope_exceeded","message":"mandate m-1 does not cover task.post:<web>","mandate_id":"m-1"}`, text(t, res))
	require.Nil(t, res.StructuredContent)
	require.Equal(t, [][2]string{{"test_refuse", "scope_exceeded"}}, f.outcomes(t, "code-web"))
}

func TestMistypedArgumentsAreRefusedAndLogged(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	for _, args := range []any{map[string]any{"name": 5}, map[string]any{}, nil} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_greet", Arguments: args})
		require.NoError(t, err)
		require.True(t, res.IsError)
		var e map[string]string
		require.NoError(t, json.Unmarshal([]byte(text(t, res)), &e))
		require.Equal(t, "invalid_request", e["error"], e["message"])
		require.NotContains(t, e, "mandate_id")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_greet", Arguments: map[string]any{"name": "ana"}})
	require.NoError(t, err)
	require.JSONEq(t, `{"greeting":"hello ana"}`, text(t, res))
	require.Equal(t, [][2]string{{"test_greet", "invalid_request"}, {"test_greet", "invalid_request"},
		{"test_greet", "invalid_request"}, {"test_greet", "ok"}}, f.outcomes(t, "code-web"))
}

func TestInternalErrorsHideTheirCause(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_crash"})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Equal(t, `{"error":"internal","message":"internal error; the board logged the details"}`, text(t, res))
	require.Contains(t, f.logs.String(), "disk on fire at /secret/path")
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pact_nope"})
	require.Error(t, err)
	require.Empty(t, f.outcomes(t, "code-web"))
}

func TestAbandonedCallCancelsTheTool(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-06-18", "2025-03-26"} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t)
			cs := f.connect(t, f.url("code-web"), f.live, version)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_block"})
				errc <- err
			}()
			var call blocked
			select {
			case call = <-f.calls:
			case <-time.After(5 * time.Second):
				t.Fatal("the tool never started")
			}
			cancel()
			select {
			case <-call.done:
			case <-time.After(3 * time.Second):
				t.Fatal("the tool's context was not canceled when its client went away")
			}
			require.Error(t, <-errc)
		})
	}
}

func TestEveryProtocolVersionCallsTools(t *testing.T) {
	f := newFixture(t)
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			cs := f.connect(t, f.url("code-web")+"/", f.live, version)
			require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_echo", Arguments: map[string]any{"x": 2}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			require.Contains(t, text(t, res), `"agent":"code-web"`)
		})
	}
}
