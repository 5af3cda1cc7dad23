package people_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A POST /connect whose body dribbles in slower than the server's
// ReadTimeout (here 300 ms for the test, kernel.MaxRequestRead in the
// board) is answered 408 and its connection closed long before the body
// would have arrived.
func TestASlowConnectBodyIsCutOffAtTheReadTimeout(t *testing.T) {
	b := newBoard(t)
	srv := httptest.NewUnstartedServer(b.Kernel.Handler())
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })

	const body = `{"code": "pcs_a-code-that-never-arrives"}`
	_, err = fmt.Fprintf(conn, "POST /connect HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		srv.Listener.Addr(), len(body))
	require.NoError(t, err)
	start := time.Now()
	go func() { // one byte every 200 ms: the whole body would take 8 s
		for i := range len(body) {
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()

	require.NoError(t, conn.SetReadDeadline(time.Now().Add(6*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "an answer came before the body could have")
	raw, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusRequestTimeout, resp.StatusCode, string(raw))
	require.JSONEq(t, `{"error":"invalid_request","message":"the body did not arrive within 30s; send it whole with the request"}`, string(raw))
	require.True(t, resp.Close, "the connection is not kept")
	require.Less(t, time.Since(start), 6*time.Second)
}
