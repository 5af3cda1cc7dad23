package mcpserve

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
)

// bodyOf is a tools/call of tool padded with spaces to exactly n bytes.
func bodyOf(t *testing.T, tool string, n int) string {
	t.Helper()
	head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `"}`
	require.Less(t, len(head)+1, n)
	return head + strings.Repeat(" ", n-len(head)-1) + "}"
}

// peek reads a body of up to maxPeekedBody bytes, the bound included, and
// tells its method and tool; a longer one it leaves to the SDK untold. In
// both, the SDK reads the whole body as it came.
func TestPeekReadsUpToItsBoundInclusive(t *testing.T) {
	for _, tc := range []struct {
		size       int
		method     string
		tool       string
		peekedBody bool
	}{
		{maxPeekedBody, "tools/call", "pact_wait", true},
		{maxPeekedBody + 1, "", "", false},
	} {
		body := bodyOf(t, "pact_wait", tc.size)
		r := httptest.NewRequest(http.MethodPost, "/mcp/a/code-web", strings.NewReader(body))
		p := peek(r)
		require.Equal(t, tc.method, p.method, "%d bytes", tc.size)
		require.Equal(t, tc.tool, p.tool, "%d bytes", tc.size)
		require.Equal(t, tc.peekedBody, p.body != nil, "%d bytes", tc.size)
		rest, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		require.Equal(t, body, string(rest), "the SDK reads the body as it came (%d bytes)", tc.size)
	}
	r := httptest.NewRequest(http.MethodGet, "/mcp/a/code-web", nil)
	require.Equal(t, peeked{}, peek(r), "a GET is not read")
}

// Held calls go through the SDK four per database connection at once, or
// 16 without a pool to size them by.
func TestHeldPassesAreFourPerDatabaseConnection(t *testing.T) {
	d := pgtest.New(t)
	conns := int(d.Pool.Config().MaxConns)
	require.Positive(t, conns)
	require.Equal(t, 4*conns, (&Server{opts: Options{DB: d}}).heldPasses())
	require.Equal(t, 16, (&Server{}).heldPasses())
	require.Equal(t, 16, (&Server{opts: Options{DB: &db.DB{}}}).heldPasses())
}

// A connection accepted while the listener closes is closed, not left
// open with nobody to serve it.
func TestAConnectionAcceptedAsTheListenerClosesIsClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := NewConns().Wrap(ln)
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	// Nobody calls Accept: the wrapped listener's goroutine holds the
	// connection it accepted until the listener closes.
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, l.Close())
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, err := c.Read(make([]byte, 1))
	require.Zero(t, n)
	require.ErrorIs(t, err, io.EOF, "the server closed the connection")
}
