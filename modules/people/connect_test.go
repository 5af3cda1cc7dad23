package people_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// connectBodyLimit is the most POST /connect takes of a body, in bytes, as
// its 413 says (maxConnectBody).
const connectBodyLimit = 4096

// connectBodyOf is {"code": code} padded with spaces before its closing
// brace to exactly size bytes, so that a body cut short by even its last
// byte is no longer JSON.
func connectBodyOf(t *testing.T, code string, size int) string {
	t.Helper()
	head := `{"code": "` + code + `"`
	body := head + strings.Repeat(" ", size-len(head)-1) + "}"
	require.Len(t, body, size)
	return body
}

// streamed hides body's length from net/http, which then sends it chunked:
// the board learns its size only by reading it.
func streamed(body string) io.Reader { return struct{ io.Reader }{strings.NewReader(body)} }

// POST /connect reads a body of up to 4096 bytes whole, whether its
// Content-Length says so beforehand or it arrives chunked: a code in a body
// of exactly the limit is redeemed. A body one byte longer is refused 413,
// announced or chunked, and the code in it stays unused.
func TestAConnectBodyOfExactlyTheLimitIsRedeemed(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("val", "POST", "/agents/hire", `{"role": "code", "project": "web"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	newCode := func() string {
		t.Helper()
		got := b.Admin("val", "POST", "/agents/code-web/setup-code", "")
		require.Equal(t, http.StatusOK, got.Status, got.Raw)
		return got.Body["code"].(string)
	}

	for _, tc := range []struct {
		name string
		send func(body string) io.Reader
	}{
		{"WithContentLength", func(body string) io.Reader { return strings.NewReader(body) }},
		{"Chunked", streamed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.postConnect(t, tc.send(connectBodyOf(t, newCode(), connectBodyLimit)))
			require.Equal(t, http.StatusOK, got.Status, got.Raw)
			require.Equal(t, "code-web", got.Body["agent_id"])
			require.Regexp(t, `^pact_`, got.Body["token"])

			code := newCode()
			got = b.postConnect(t, tc.send(connectBodyOf(t, code, connectBodyLimit+1)))
			require.Equal(t, http.StatusRequestEntityTooLarge, got.Status, got.Raw)
			require.Equal(t, map[string]any{"error": "invalid_request",
				"message": `the body is at most 4096 bytes: send {"code": "pcs_..."}`}, got.Body)
			got = b.connectCode(t, `{"code": "`+code+`"}`)
			require.Equal(t, http.StatusOK, got.Status, "the code in a refused body is still good: %s", got.Raw)
		})
	}
	require.Equal(t, 4, b.Count(`SELECT count(*) FROM agent_tokens WHERE agent_id = 'code-web'`))
}
