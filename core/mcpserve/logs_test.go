package mcpserve_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// What a failed call tells the operator: a failure of the board's is an
// error line with its cause, which the agent is not told; a call its
// client abandoned is a debug line; a refusal is no line at all. A
// resource read that fails is an error line too; a refused one is none.
func TestFailuresAreLoggedAtTheirLevel(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cs := f.connect(t, f.url("code-web"), f.live, "")
	mark := func() func() string {
		n := len(f.logs.String())
		return func() string { return f.logs.String()[n:] }
	}

	since := mark()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_crash", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.NotContains(t, text(t, res), "disk on fire", "the agent is not told the cause")
	logged := since()
	require.Contains(t, logged, "[ERROR] mcp: tool call failed")
	require.Contains(t, logged, "disk on fire at /secret/path")

	since = mark()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_refuse", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.NotContains(t, since(), "tool call", "a refusal is no failure")

	since = mark()
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = cs.CallTool(cctx, &mcp.CallToolParams{Name: "test_block", Arguments: map[string]any{}})
	}()
	b := <-f.calls
	cancel()
	<-b.done
	<-done
	require.Eventually(t, func() bool { return strings.Contains(since(), "tool call abandoned by its client") }, 10*time.Second, 10*time.Millisecond)
	require.Contains(t, since(), "[DEBUG]")
	require.NotContains(t, since(), "[ERROR]", "an abandoned call is no failure of the board's")

	since = mark()
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "pact://projects/web/context/broken"})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "disk is on fire")
	logged = since()
	require.Contains(t, logged, "[ERROR] mcp: resource read failed")
	require.Contains(t, logged, "the notes' disk is on fire")
	since = mark()
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "pact://projects/web/context/secret"})
	require.Error(t, err)
	require.NotContains(t, since(), "resource read failed", "a refused read is no failure")
}

// dateOf records the Date header of each answer.
type dateOf struct{ dates []string }

func (d *dateOf) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		d.dates = append(d.dates, resp.Header.Get("Date"))
	}
	return resp, err
}

// A held call answered from where it parked carries a Date header, as
// net/http's own answers do (RFC 9110 §6.6.1: an origin server with a
// clock sends one).
func TestAParkedAnswerIsDated(t *testing.T) {
	f := newFixture(t)
	d := &dateOf{}
	status, _, body, err := f.rawCallWith(context.Background(), &http.Client{Transport: d}, "test_wait", map[string]any{"ms": 300}, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, body)
	require.Len(t, d.dates, 1)
	at, err := http.ParseTime(d.dates[0])
	require.NoError(t, err, "the answer is dated: %q", d.dates[0])
	require.WithinDuration(t, time.Now(), at, time.Minute)
}
