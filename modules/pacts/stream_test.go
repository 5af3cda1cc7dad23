package pacts_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/pacts"
)

// The stream wakes on commits (the events hub): each test waits at most
// 10 s for an event, under the stream's own 15 s re-check.
func streamWorld(t *testing.T) *fixture {
	return setupWith(t, kerneltest.Options{Events: true}, pacts.Options{})
}

func TestStreamResumesAfterADroppedConnectionWithLastEventID(t *testing.T) {
	f := streamWorld(t)
	id := f.pact(t)
	out, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "stream"})
	require.NoError(t, err)
	require.Equal(t, "/pacts/stream", out["stream"].(map[string]any)["path"])

	s := f.stream(t, "bram", "", "")
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "First: " + strings.Repeat("x", 500)})
	require.NoError(t, err)
	first := s.next(t)
	require.Equal(t, "message", first.Kind)
	require.Equal(t, "W-001", first.Data["ref"])
	require.Equal(t, "Launch", first.Data["pact"])
	require.Len(t, []rune(first.Data["excerpt"].(string)), 400, "an event carries the first 400 characters")
	n, err := strconv.ParseInt(first.ID, 10, 64)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"tool": "get_pact", "arguments": map[string]any{"pact_id": id, "since": float64(n - 1)}},
		first.Data["read_rest"])

	// The connection drops; two messages land meanwhile.
	s.cancel()
	for _, body := range []string{"Second", "Third"} {
		_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": body})
		require.NoError(t, err)
	}
	s = f.stream(t, "bram", "", first.ID)
	second, third := s.next(t), s.next(t)
	require.Equal(t, []any{"W-002", "W-003"}, []any{second.Data["ref"], third.Data["ref"]})
	require.Equal(t, "Second", second.Data["excerpt"])

	// read_rest is the call that reads the rest, once the mandate is added.
	args := third.Data["read_rest"].(map[string]any)["arguments"].(map[string]any)
	got, err := f.as("bram", pacts.ToolGet, args)
	require.NoError(t, err)
	msgs := got["messages"].([]any)
	require.Equal(t, "W-003", msgs[len(msgs)-1].(map[string]any)["number"])
}

func TestStreamNeverSendsAnAgentItsOwnMessages(t *testing.T) {
	f := streamWorld(t)
	id := f.pact(t)
	s := f.stream(t, "bram", "", "")
	_, err := f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "mine"})
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "hers"})
	require.NoError(t, err)
	ev := s.next(t)
	require.Equal(t, "W-001", ev.Data["ref"], "bram's own B-001 is never sent to bram")
	require.Equal(t, "@wanda", ev.Data["seat"])

	// Replaying the whole feed holds nothing of bram's either.
	s.cancel()
	s = f.stream(t, "bram", "", "0")
	for {
		ev := s.next(t)
		require.NotEqual(t, "@bram", ev.Data["seat"], "%+v", ev)
		require.NotEqual(t, "agent:bram", ev.Data["actor"], "%+v", ev)
		if ev.Data["ref"] == "W-001" {
			break
		}
	}
}

func TestStreamFilterSelectsPacts(t *testing.T) {
	f := streamWorld(t)
	one, two := f.pact(t), f.pact(t)
	s := f.stream(t, "bram", "?pacts="+two, "0")
	for _, p := range []string{one, two} {
		_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": p, "body": "hello " + p})
		require.NoError(t, err)
	}
	for {
		ev := s.next(t)
		require.Equal(t, two, ev.Data["pact_id"], "only the pact the filter names: %+v", ev)
		if ev.Kind == "message" {
			break
		}
	}
	s.none(t, 300*time.Millisecond)
}

func TestStreamRefusesWithoutALiveAgentToken(t *testing.T) {
	f := streamWorld(t)
	get := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, f.URL+"/pacts/stream", nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	status, body := get("")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Contains(t, body, `"error":"unauthorized"`)
	status, _ = get("pact_notatoken")
	require.Equal(t, http.StatusUnauthorized, status)
	status, _ = get(f.AdminToken("ana"))
	require.Equal(t, http.StatusUnauthorized, status, "a person's token is not an agent's")

	// A paused agent is refused as a tool call would be.
	require.NoError(t, f.Identity.SetAgentStatus(context.Background(), f.DB, "bram", "paused"))
	status, body = get(f.Token("bram"))
	require.Equal(t, http.StatusForbidden, status)
	require.Contains(t, body, `"error":"agent_paused"`)
}
