package mcpserve_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
)

// An agent holds at most kernel.MaxWaitsPerAgent waiting calls at once:
// the next is refused at once with rate_limited and logged; the held ones
// end as they would have, another agent still waits, and a slot is free
// again once a wait has ended.
func TestAnAgentHoldsAtMostMaxWaitsPerAgentAtOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	bodies := make([]string, kernel.MaxWaitsPerAgent)
	var held sync.WaitGroup
	for i := range kernel.MaxWaitsPerAgent {
		held.Go(func() {
			status, _, body, err := f.rawCall(ctx, "test_wait", map[string]any{"ms": 4000}, nil)
			if err == nil && status != http.StatusOK {
				body = http.StatusText(status)
			}
			bodies[i] = body
		})
	}
	require.Eventually(t, func() bool { return f.prepared.Load() == kernel.MaxWaitsPerAgent },
		10*time.Second, 10*time.Millisecond, "every wait is held")

	status, _, body, err := f.rawCall(ctx, "test_wait", map[string]any{"ms": 4000}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, `"isError":true`)
	require.Contains(t, body, `\"error\":\"rate_limited\"`)
	require.Contains(t, body, "already has 4 calls waiting")
	require.EqualValues(t, kernel.MaxWaitsPerAgent, f.prepared.Load(), "the refused call prepared no wait")

	other := f.connect(t, f.url("code-api"), f.other, "")
	res, err := other.CallTool(ctx, &mcp.CallToolParams{Name: "test_wait", Arguments: map[string]any{"ms": 50}})
	require.NoError(t, err)
	require.False(t, res.IsError, text(t, res))
	require.JSONEq(t, `{"agent":"code-api","ready":false}`, text(t, res))

	held.Wait()
	for _, b := range bodies {
		require.Contains(t, b, `"structuredContent":{"agent":"code-web","ready":false}`)
	}
	status, _, body, err = f.rawCall(ctx, "test_wait", map[string]any{"ms": 0}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.NotContains(t, body, "rate_limited", "the slots are free again")
	require.ElementsMatch(t, [][2]string{{"test_wait", "rate_limited"}, {"test_wait", "ok"}, {"test_wait", "ok"},
		{"test_wait", "ok"}, {"test_wait", "ok"}, {"test_wait", "ok"}}, f.outcomes(t, "code-web"))
}
