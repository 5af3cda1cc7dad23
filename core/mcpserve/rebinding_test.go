package mcpserve_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// postAs sends an initialize to path with a valid token, as a browser
// would after DNS rebinding: host names the request, origin (when set) the
// page that sent it.
func (f *fixture) postAs(t *testing.T, path, host, origin string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.URL+path, strings.NewReader(initBody("2025-06-18")))
	require.NoError(t, err)
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+f.live)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// SEC-014: a page whose name was rebound to the board's address sends the
// page's Host and Origin; the board refuses both before it reads the
// token, whatever the path under /mcp.
func TestForeignHostOrOriginIsRefused(t *testing.T) {
	f := newFixture(t)
	port := f.URL[strings.LastIndex(f.URL, ":"):]
	for _, c := range []struct{ name, path, host, origin string }{
		{"ForeignHost", "/mcp/a/code-web", "evil.example", ""},
		{"ForeignHostWithPort", "/mcp/a/code-web", "evil.example" + port, ""},
		{"ForeignHostAndOrigin", "/mcp/a/code-web", "evil.example", "http://evil.example"},
		{"ForeignOrigin", "/mcp/a/code-web", "127.0.0.1" + port, "http://evil.example"},
		{"NullOrigin", "/mcp/a/code-web", "127.0.0.1" + port, "null"},
		{"PublicHostOtherScheme", "/mcp/a/code-web", "board.example", "http://board.example"},
		{"PublicHostOtherPort", "/mcp/a/code-web", "board.example:8443", ""},
		{"PublicNameAsSuffix", "/mcp/a/code-web", "board.example.evil.example", ""},
		{"TrailingSlash", "/mcp/a/code-web/", "evil.example", ""},
		{"NoAgent", "/mcp", "evil.example", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := f.postAs(t, c.path, c.host, c.origin)
			require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			require.Contains(t, body, `{"error":"forbidden","message":"`)
		})
	}
}

// The public URL's host (what a reverse proxy in front forwards) and the
// loopback names on a loopback connection are the board's own.
func TestOwnHostAndOriginAreServed(t *testing.T) {
	f := newFixture(t)
	port := f.URL[strings.LastIndex(f.URL, ":"):]
	for _, c := range []struct{ name, host, origin string }{
		{"PublicHost", "board.example", ""},
		{"PublicHostDefaultPort", "board.example:443", ""},
		{"PublicHostAndOrigin", "BOARD.example", "https://board.example"},
		{"LoopbackAddress", "127.0.0.1" + port, ""},
		{"LoopbackAddressAndOrigin", "127.0.0.1" + port, "http://127.0.0.1" + port},
		{"Localhost", "localhost" + port, "http://localhost:5173"},
		{"LoopbackV6", "[::1]" + port, "http://[::1]" + port},
		{"LoopbackHostPublicOrigin", "127.0.0.1" + port, "https://board.example"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := f.postAs(t, "/mcp/a/code-web", c.host, c.origin)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
		})
	}
}
