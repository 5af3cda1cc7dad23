package mcpserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
)

// A tools/call over HTTP of a tool that answers at once has its agent
// token checked in the gate's own statement (calltoken.go), as the same
// call made in process with its token unchecked does
// (kernel.WithAgentToken): checking it apart, before the call, would cost
// a round trip of its own (PERF-001). A tool with a Wait phase is held on
// a path that serves only authenticated requests (held.go), so over HTTP
// its token is checked apart, before the call: one round trip more than
// the same call in process, whose token the statement admitting the agent
// before the wait checks.
func TestATokenIsCheckedInTheCallsGateWhereItCanBe(t *testing.T) {
	f := newFixture(t)
	f.ready.Store(true)
	ctx := context.Background()
	overHTTP := func(tool string, args map[string]any) int64 {
		before := f.DB.RoundTrips()
		resp, got := f.postRPC(t, rpcBody("tools/call", map[string]any{"name": tool, "arguments": args}), "Bearer "+f.live, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, got)
		return f.DB.RoundTrips() - before
	}
	inProcess := func(tool string, args map[string]any) int64 {
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		before := f.DB.RoundTrips()
		_, err = f.Kernel.Tools().Call(kernel.WithAgentToken(ctx, f.live), "code-web", tool, raw)
		require.NoError(t, err)
		return f.DB.RoundTrips() - before
	}
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		apart int64 // the transport's own check of the token
	}{
		{"test_echo", map[string]any{"x": 1}, 0},
		{"test_wait", map[string]any{"ms": 10}, 1},
	} {
		overHTTP(tc.tool, tc.args) // warm: the first use of a statement prepares it
		inProcess(tc.tool, tc.args)
		got, want := overHTTP(tc.tool, tc.args), inProcess(tc.tool, tc.args)+tc.apart
		require.Equal(t, want, got, "%s: round trips over HTTP, against the same call in process", tc.tool)
	}
}
