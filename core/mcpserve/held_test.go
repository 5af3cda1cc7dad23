package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// rawCall is one stateless 2026-07-28 tools/call as a plain POST; header
// overrides or adds headers. It returns the status, the headers that are
// not the transport's own (Date, Content-Length), and the body.
func (f *fixture) rawCall(ctx context.Context, tool string, args map[string]any, header map[string]string) (int, http.Header, string, error) {
	return f.rawCallWith(ctx, http.DefaultClient, tool, args, header)
}

// rawCallWith is rawCall through client.
func (f *fixture) rawCallWith(ctx context.Context, client *http.Client, tool string, args map[string]any,
	header map[string]string) (int, http.Header, string, error) {
	const version = "2026-07-28"
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "raw", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url("code-web"), bytes.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	for k, v := range map[string]string{"Authorization": "Bearer " + f.live, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": version, "Mcp-Method": "tools/call",
		"Mcp-Name": tool} {
		req.Header.Set(k, v)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if header["Connection"] == "close" {
		req.Close = true
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	resp.Header.Del("Date")
	resp.Header.Del("Content-Length")
	return resp.StatusCode, resp.Header, string(raw), err
}

// A call that waits is answered exactly as one whose wait ends at its
// first check: same status, headers and bytes.
func TestAHeldCallIsAnsweredAsOnePassWouldBe(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	status, header, body, err := f.rawCall(ctx, "test_wait", map[string]any{"ms": 0}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, body)
	require.EqualValues(t, 1, f.ended.Load())

	start := time.Now()
	heldStatus, heldHeader, heldBody, err := f.rawCall(ctx, "test_wait", map[string]any{"ms": 300}, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "it waited")
	require.Equal(t, status, heldStatus)
	require.Equal(t, header, heldHeader)
	require.Equal(t, body, heldBody)
	require.Contains(t, body, `"structuredContent":{"agent":"code-web","ready":false}`)
	require.EqualValues(t, 2, f.prepared.Load(), "each call's wait was prepared once")
	require.EqualValues(t, 2, f.ended.Load())
	require.Equal(t, [][2]string{{"test_wait", "ok"}, {"test_wait", "ok"}}, f.outcomes(t, "code-web"))
}

func TestEveryProtocolVersionHoldsACall(t *testing.T) {
	f := newFixture(t)
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			cs := f.connect(t, f.url("code-web"), f.live, version)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_wait", Arguments: map[string]any{"ms": 100}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			require.JSONEq(t, `{"agent":"code-web","ready":false}`, text(t, res))
		})
	}
}

// goroutinesWith counts the goroutines whose stack mentions s.
func goroutinesWith(s string) int {
	buf := make([]byte, 1<<22)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, s) {
			n++
		}
	}
	return n
}

// While a call waits, nothing of the SDK is left running for it. Parked
// (park.go), nothing of net/http either: two goroutines of its own, one
// that waits and one that reads the connection. Otherwise it waits on its
// HTTP request's goroutine (held.go). When its client goes away, the wait
// ends and nothing is logged.
func TestAHeldCallWaitsOutsideTheSDK(t *testing.T) {
	for _, park := range []bool{true, false} {
		t.Run(fmt.Sprintf("parked=%t", park), func(t *testing.T) {
			f := newFixtureParking(t, park)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, _, _, err := f.rawCall(ctx, "test_wait", map[string]any{"ms": 30000}, nil)
				done <- err
			}()
			require.Eventually(t, func() bool {
				return goroutinesWith("core/events.(*Wait).Run") == 1 && goroutinesWith("modelcontextprotocol/go-sdk") == 0
			}, 5*time.Second, 10*time.Millisecond, "the call waits outside the SDK")
			if park {
				require.Zero(t, goroutinesWith("mcpserve.(*Server).serveHeld"), "net/http's goroutine has returned")
				require.Equal(t, 1, goroutinesWith("mcpserve.(*parked).waitThenAnswer"))
				require.Equal(t, 1, goroutinesWith("mcpserve.(*parked).watch"))
			} else {
				require.Equal(t, 1, goroutinesWith("mcpserve.(*Server).serveHeld"))
			}

			cancel()
			require.Error(t, <-done)
			require.Eventually(t, func() bool { return f.ended.Load() == 1 }, 5*time.Second, 10*time.Millisecond)
			require.Empty(t, f.outcomes(t, "code-web"))
			require.Eventually(t, func() bool { return strings.Contains(f.logs.String(), "tool call abandoned by its client") },
				5*time.Second, 10*time.Millisecond)
		})
	}
}

// A parked call's connection goes back to the server once answered: the
// client's next call on it is served as on any keep-alive connection, and
// a client that asked to close has its connection closed.
func TestAParkedCallsConnectionServesTheNextCall(t *testing.T) {
	f := newFixture(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	t.Cleanup(client.CloseIdleConnections)
	var reused []bool
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}
	ctx := httptrace.WithClientTrace(context.Background(), trace)
	for range 3 {
		status, _, body, err := f.rawCallWith(ctx, client, "test_wait", map[string]any{"ms": 150}, nil)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status, body)
		require.Contains(t, body, `"structuredContent":{"agent":"code-web","ready":false}`)
	}
	status, _, body, err := f.rawCallWith(ctx, client, "test_echo", map[string]any{"x": 1}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, []bool{false, true, true, true}, reused, "one connection served every call")

	status, _, _, err = f.rawCallWith(ctx, client, "test_wait", map[string]any{"ms": 100},
		map[string]string{"Connection": "close"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	status, _, _, err = f.rawCallWith(ctx, client, "test_echo", map[string]any{"x": 2}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []bool{false, true, true, true, true, false}, reused, "the call that asked to close was the connection's last")
	require.Equal(t, [][2]string{{"test_wait", "ok"}, {"test_wait", "ok"}, {"test_wait", "ok"}, {"test_echo", "ok"},
		{"test_wait", "ok"}, {"test_echo", "ok"}}, f.outcomes(t, "code-web"))
}

// The SDK still judges every request first: one it rejects is answered at
// once, and its wait is never prepared.
func TestTheSDKStillJudgesAHeldCall(t *testing.T) {
	f := newFixture(t)
	start := time.Now()
	status, _, body, err := f.rawCall(context.Background(), "test_wait", map[string]any{"ms": 5000},
		map[string]string{"Mcp-Name": "test_echo"})
	require.NoError(t, err)
	require.Equal(t, http.StatusBadRequest, status, body)
	require.Less(t, time.Since(start), 3*time.Second)
	require.Zero(t, f.prepared.Load())
	require.Empty(t, f.outcomes(t, "code-web"))
}

// A batch (legacy protocols only) is not held: it waits inside the SDK, as
// before, and both of its calls are answered.
func TestABatchWaitsInOnePass(t *testing.T) {
	f := newFixture(t)
	resp, body := f.post(t, "/mcp/a/code-web", "Bearer "+f.live, `[
		{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_wait","arguments":{"ms":200}}},
		{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_echo","arguments":{"x":1}}}]`)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Contains(t, body, `\"ready\":false`)
	require.Contains(t, body, `\"agent\":\"code-web\"`)
	require.EqualValues(t, 1, f.ended.Load())
	require.ElementsMatch(t, [][2]string{{"test_wait", "ok"}, {"test_echo", "ok"}}, f.outcomes(t, "code-web"))
}

// A refusal before the wait, and work found at the first check, are
// answered in the first pass, once.
func TestACallThatNeedNotWaitIsAnsweredAtOnce(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, f.url("code-web"), f.live, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_wait", Arguments: map[string]any{"refuse": true}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Equal(t, `{"error":"scope_exceeded","message":"may not wait"}`, text(t, res))

	f.ready.Store(true)
	start := time.Now()
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_wait", Arguments: map[string]any{"ms": 30000}})
	require.NoError(t, err)
	require.JSONEq(t, `{"agent":"code-web","ready":true}`, text(t, res))
	require.Less(t, time.Since(start), 10*time.Second)
	require.Equal(t, [][2]string{{"test_wait", "scope_exceeded"}, {"test_wait", "ok"}}, f.outcomes(t, "code-web"))
}

// A body larger than any call that waits goes to the SDK whole, the part
// read to look at it first.
func TestALargeBodyReachesTheSDKWhole(t *testing.T) {
	f := newFixture(t)
	big := strings.Repeat("a", 100_000)
	status, _, body, err := f.rawCall(context.Background(), "test_echo", map[string]any{"agent": big}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, `\"agent\":\"`+big+`\"`)
}

// TestAnOversizedBodyIsRefused: a body over the SDK's limit (4 MiB, which
// the board leaves on) is refused as it is read, not held in memory whole,
// and the board goes on serving (docs/security.md, "7. Caps").
func TestAnOversizedBodyIsRefused(t *testing.T) {
	f := newFixture(t)
	huge := strings.Repeat("a", mcp.DefaultMaxRequestBodyBytes)
	status, _, body, err := f.rawCall(context.Background(), "test_echo", map[string]any{"agent": huge}, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, status, 400, body)
	require.Less(t, status, 500, body)
	require.NotContains(t, body, huge[:1000])
	status, _, body, err = f.rawCall(context.Background(), "test_echo", map[string]any{"agent": "small"}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, body)
}
