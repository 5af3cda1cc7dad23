package pacts_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/pacts"
)

// A stream outlives its heartbeats: at each one the board checks the
// agent's token again and, finding it still good, writes the heartbeat and
// goes on waiting, so a message posted after the heartbeat still reaches
// the agent over the same connection. The test reads the raw stream (the
// heartbeat is a comment, which f.stream drops) and waits for the first
// heartbeat, here 200 ms after the stream opens.
func TestStreamKeepsGoingAfterAHeartbeat(t *testing.T) {
	f := setupWith(t, kerneltest.Options{Events: true}, pacts.Options{StreamHeartbeat: 200 * time.Millisecond})
	id := f.pact(t)
	// The bound only stops a stream that hangs.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL+"/pacts/stream", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+f.Token("bram"))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lines := bufio.NewReader(resp.Body)
	// readUntil reads the stream's lines until one starts with prefix,
	// failing if the stream ends first.
	readUntil := func(prefix, why string) string {
		t.Helper()
		for {
			line, err := lines.ReadString('\n')
			require.NoError(t, err, "the stream ended before %s", why)
			if strings.HasPrefix(line, prefix) {
				return line
			}
		}
	}
	readUntil(": heartbeat", "its first heartbeat")

	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "after the heartbeat"})
	require.NoError(t, err)
	data := readUntil("data: ", "the message posted after the heartbeat")
	require.Contains(t, data, `"ref":"W-001"`)
}

// When the stream cannot read the feed while its client is still
// connected (here the database has lost the feed's table), the stream ends
// and the operator gets an error log "pact stream: read the feed" naming
// the agent: the only trace of why the client was cut off.
func TestStreamLogsWhyItCannotReadTheFeed(t *testing.T) {
	logs := &logtest.Buffer{}
	f := setupWith(t, kerneltest.Options{Events: true, Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Error})},
		pacts.Options{StreamRecheck: 50 * time.Millisecond})
	f.pact(t)
	s := f.stream(t, "bram", "", "")
	f.Exec(`ALTER TABLE pact_feed RENAME TO pact_feed_gone`)
	t.Cleanup(func() { f.Exec(`ALTER TABLE pact_feed_gone RENAME TO pact_feed`) })
	select {
	case ev, open := <-s.events:
		require.False(t, open, "no event was due: %+v", ev)
	case <-time.After(30 * time.Second):
		t.Fatal("the stream stayed open without its feed")
	}
	line := logs.Line("pact stream: read the feed")
	require.NotEmpty(t, line, "the failed read is logged: %s", logs.String())
	require.Contains(t, line, "agent=bram")
	require.Contains(t, line, "pact_feed")
}
