package mcpserve_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The server's ReadTimeout (kernel.MaxRequestRead in the board, 200 ms
// here) bounds the reading of a request, not its answer: a held call whose
// body came at once waits well past it and is answered.
func TestAHeldCallOutlastsTheReadTimeout(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewUnstartedServer(f.Kernel.Handler())
	srv.Config.ReadTimeout = 200 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)

	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_wait","arguments":{"ms":1500},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/mcp/a/code-web", bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	for k, v := range map[string]string{"Authorization": "Bearer " + f.live, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
		"Mcp-Name": "test_wait"} {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(raw))
	require.GreaterOrEqual(t, time.Since(start), 1500*time.Millisecond, "it waited past the deadline")
	require.Contains(t, string(raw), `"structuredContent":{"agent":"code-web","ready":false}`)
	require.Equal(t, [][2]string{{"test_wait", "ok"}}, f.outcomes(t, "code-web"))
}
