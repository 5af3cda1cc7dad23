package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/pgtest"
)

// heldAnswer is what a held call returned.
type heldAnswer struct {
	out     map[string]any
	refused bool
	err     error
	took    time.Duration
}

// holdCall calls a tool on its own goroutine; the answer comes on the channel.
func holdCall(cs *mcp.ClientSession, name string, args map[string]any) <-chan heldAnswer {
	ch := make(chan heldAnswer, 1)
	go func() {
		started := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		a := heldAnswer{err: err, took: time.Since(started)}
		if err == nil && len(res.Content) == 1 {
			a.refused = res.IsError
			if text, ok := res.Content[0].(*mcp.TextContent); ok {
				a.err = json.Unmarshal([]byte(text.Text), &a.out)
			}
		}
		ch <- a
	}()
	return ch
}

func awaitHeld(t *testing.T, name string, ch <-chan heldAnswer) map[string]any {
	t.Helper()
	select {
	case a := <-ch:
		require.NoError(t, a.err, name)
		require.False(t, a.refused, "%s refused: %v", name, a.out)
		require.Less(t, a.took, 20*time.Second, "%s was held to its deadline, not answered by the drain", name)
		return a.out
	case <-time.After(20 * time.Second):
		t.Fatalf("%s was not answered within 20 s of the drain", name)
		return nil
	}
}

// slowCall starts a tools/call of pact_whoami whose body is still being
// sent: a call in flight. finish sends the rest and returns the answer.
func slowCall(t *testing.T, base, agent, token string) (finish func() (int, []byte)) {
	t.Helper()
	const version = "2026-07-28"
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "pact_whoami", "arguments": map[string]any{},
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "slow", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}})
	require.NoError(t, err)
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, base+"/mcp/a/"+agent, pr)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "pact_whoami")
	type answer struct {
		code int
		raw  []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, raw, err}
	}()
	half := len(body) / 2
	_, err = pw.Write(body[:half])
	require.NoError(t, err)
	return func() (int, []byte) {
		_, err := pw.Write(body[half:])
		require.NoError(t, err)
		require.NoError(t, pw.Close())
		select {
		case a := <-done:
			require.NoError(t, a.err)
			return a.code, a.raw
		case <-time.After(20 * time.Second):
			t.Fatal("the call in flight was not answered")
			return 0, nil
		}
	}
}

func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// REL-001: a board told to stop (what SIGTERM does) leaves /readyz while
// /healthz stays 200, answers its held pact_wait and pact_events at once
// with reconnect, lets a call in flight finish, and then stops; the client
// that calls again on another board with next_since loses nothing.
func TestDrainAnswersHeldCallsAndLetsCallsInFlightFinish(t *testing.T) {
	dsn := pgtest.NewDSN(t)
	one, _, stopOne := startMain(t, map[string]string{"DATABASE_URL": dsn, "PACT_DRAIN_SECONDS": "2"})
	two, _, _ := startMain(t, map[string]string{"DATABASE_URL": dsn})
	baseOne, baseTwo := "http://"+one.Addr().String(), "http://"+two.Addr().String()
	b := seedE2E(t, dsn, baseOne)

	code := connect(t, baseOne, "code-web", b.tokens["code-web"])
	runner := connect(t, baseOne, "runner-web", b.tokens["runner-web"])
	first := runner.ok("pact_events", map[string]any{"mandate_id": b.roots["runner-web"], "seconds": 0})
	since := first["next_since"].(float64)

	wait := holdCall(code.cs, "pact_wait", map[string]any{"mandate_id": b.roots["code-web"], "seconds": 50})
	events := holdCall(runner.cs, "pact_events", map[string]any{"mandate_id": b.roots["runner-web"],
		"since": since, "seconds": 50})
	finish := slowCall(t, baseOne, "code-web", b.tokens["code-web"])
	// Let both calls be held and the slow one start; a call that only
	// arrives once the board drains is answered the same way.
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, http.StatusOK, statusOf(t, baseOne+"/readyz"))

	stopped := make(chan error, 1)
	go func() { stopped <- stopOne() }()

	require.Eventually(t, func() bool { return statusOf(t, baseOne+"/readyz") == http.StatusServiceUnavailable },
		10*time.Second, 20*time.Millisecond, "the board leaves /readyz")
	resp, body := get(t, baseOne+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, map[string]any{"error": "unavailable", "message": kernel.DrainMessage}, body)
	require.Equal(t, http.StatusOK, statusOf(t, baseOne+"/healthz"), "alive while it drains")

	got := awaitHeld(t, "pact_wait", wait)
	require.Equal(t, true, got["reconnect"], "%v", got)
	require.Equal(t, true, got["timed_out"], "%v", got)
	got = awaitHeld(t, "pact_events", events)
	require.Equal(t, true, got["reconnect"], "%v", got)
	require.Equal(t, true, got["timed_out"], "%v", got)
	next, ok := got["next_since"].(float64)
	require.True(t, ok, "%v", got)
	require.GreaterOrEqual(t, next, since)

	// The gap: a task is posted, on the other board, before the runner
	// calls again there with next_since.
	codeTwo := connect(t, baseTwo, "code-web", b.tokens["code-web"])
	task := codeTwo.ok("pact_post", map[string]any{"project_id": "web", "title": "Posted while the runner reconnects",
		"mandate_id": b.roots["code-web"]})["task_id"]
	runnerTwo := connect(t, baseTwo, "runner-web", b.tokens["runner-web"])
	work := runnerTwo.ok("pact_events", map[string]any{"mandate_id": b.roots["runner-web"], "since": next, "seconds": 10})
	tasks, _ := work["tasks"].([]any)
	require.Len(t, tasks, 1, "%v", work)
	require.Equal(t, task, tasks[0].(map[string]any)["id"])
	require.Nil(t, work["reconnect"], "the other board is not draining")

	// Once the drain wait is over the board stops taking connections, and
	// still finishes the call in flight.
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", one.Addr().String(), time.Second)
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	}, 20*time.Second, 20*time.Millisecond, "the board stops listening after PACT_DRAIN_SECONDS")
	status, raw := finish()
	require.Equal(t, http.StatusOK, status, "%s", raw)
	require.True(t, bytes.Contains(raw, []byte(`"code-web"`)), "pact_whoami answered: %s", raw)
	require.False(t, bytes.Contains(raw, []byte(`"isError":true`)), "%s", raw)

	select {
	case err := <-stopped:
		require.NoError(t, err, "the drained board stops cleanly")
	case <-time.After(30 * time.Second):
		t.Fatal("the board did not stop")
	}
}
