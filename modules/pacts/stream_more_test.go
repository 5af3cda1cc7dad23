package pacts_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// openStream asks for agent's pact stream with query and answers the
// response; a stream answered 200 stays open until the test ends, any
// other answer is read whole and its body returned.
func (f *fixture) openStream(t *testing.T, agent, query string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL+"/pacts/stream"+query, nil)
	require.NoError(t, err)
	if agent != "" {
		req.Header.Set("Authorization", "Bearer "+f.Token(agent))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK {
		t.Cleanup(func() { cancel(); resp.Body.Close() })
		return resp, ""
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cancel()
	return resp, string(body)
}

// The pact filter may name up to 50 pacts: a stream naming exactly 50
// opens and carries the named pact's messages, one naming 51 is refused
// invalid_request.
func TestStreamFilterNamesAtMostFiftyPacts(t *testing.T) {
	f := streamWorld(t)
	id := f.pact(t)
	ids := []string{id}
	for i := len(ids); i < 50; i++ {
		ids = append(ids, fmt.Sprintf("no-such-pact-%d", i))
	}
	s := f.stream(t, "bram", "?pacts="+strings.Join(ids, ","), "")
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "to fifty"})
	require.NoError(t, err)
	require.Equal(t, "to fifty", s.next(t).Data["excerpt"])

	resp, body := f.openStream(t, "bram", "?pacts="+strings.Join(append(ids, "one-too-many"), ","))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
	require.Contains(t, body, `"error":"invalid_request"`)
	require.Contains(t, body, "at most 50 pact ids")
}

// A stream refused for want of a live token says how to authenticate
// (WWW-Authenticate, as RFC 6750 asks of a 401); a stream refused for
// any other reason (here a paused agent, 403) does not challenge.
func TestStreamChallengesOnlyWhenTheTokenIsMissing(t *testing.T) {
	f := streamWorld(t)
	resp, body := f.openStream(t, "", "")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, body)
	require.Equal(t, `Bearer realm="PACT Board pact stream"`, resp.Header.Get("WWW-Authenticate"))
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"))

	require.NoError(t, f.SetAgentStatus("bram", "paused"))
	resp, body = f.openStream(t, "bram", "")
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Empty(t, resp.Header.Get("WWW-Authenticate"), "a paused agent's token is good: nothing to challenge")
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
}

// One of an agent's four streams closing frees one place, not all four:
// the agent opens one stream in its place, and the next is refused
// rate_limited again.
func TestAClosedStreamFreesOnlyItsOwnPlace(t *testing.T) {
	f := streamWorld(t)
	f.pact(t)
	var open []*sseClient
	for range pacts.MaxStreamsPerAgent {
		open = append(open, f.stream(t, "bram", "", ""))
	}
	open[0].cancel()
	eventually(t, "a closed stream gives its place back", func() bool {
		resp, _ := f.openStream(t, "bram", "")
		return resp.StatusCode == http.StatusOK
	})
	resp, body := f.openStream(t, "bram", "")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "bram holds four streams again: %s", body)
	require.Contains(t, body, `"error":"rate_limited"`)
}
