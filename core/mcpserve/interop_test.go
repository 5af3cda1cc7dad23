package mcpserve_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mcpserve/tsclient"
)

// TestTypeScriptClientInterop connects the official TypeScript SDK client
// (core/mcpserve/tsclient, pinned by its package-lock.json) to the server.
// Node and npm are required: without them the test fails rather than
// skips, so make test cannot pass without having run it.
func TestTypeScriptClientInterop(t *testing.T) {
	f := newFixture(t)
	out := tsclient.Run(t, f.url("code-web"), f.live,
		tsclient.Call{Tool: "test_echo", Args: map[string]any{"x": 3}}, tsclient.Call{Tool: "test_refuse"})
	t.Logf("TypeScript client negotiated %s", out.ProtocolVersion)
	require.NotEmpty(t, out.ProtocolVersion)
	require.Equal(t, "pact-board", out.Server.Name)
	require.NotEmpty(t, out.Instructions)
	require.Equal(t, f.Kernel.Tools().Names(), out.Tools)
	echo := out.Results[0]
	require.False(t, echo.IsError)
	require.Len(t, echo.Content, 1)
	require.Equal(t, "text", echo.Content[0].Type)
	require.Equal(t, "code-web", echo.StructuredContent["agent"])

	refused := out.Results[1]
	require.True(t, refused.IsError)
	require.Equal(t, `{"error":"scope_exceeded","message":"mandate m-1 does not cover task.post:<web>","mandate_id":"m-1"}`,
		refused.Content[0].Text)
}
