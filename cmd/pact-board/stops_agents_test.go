package main

// The agent channels' drivers of TestAStopReachesEveryChannel
// (stops_test.go): each opens its channel for the subject before the stop
// and returns the check that runs after it.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// streamLines hands resp's body line by line, closing the channel when
// the stream ends.
func streamLines(t *testing.T, resp *http.Response) <-chan string {
	t.Cleanup(func() { resp.Body.Close() })
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// endsWithout is a stream driver's check: after the stop the stream must
// end within the bound without carrying the word.
func endsWithout(lines <-chan string, what string) func(*testing.T, time.Time, string) {
	return func(t *testing.T, stopped time.Time, word string) {
		deadline := time.After(time.Until(stopped.Add(stopBound)))
		for {
			select {
			case line, open := <-lines:
				if !open {
					return // ended in time
				}
				if word != "" {
					require.NotContains(t, line, word, "the %s carried content written after the stop", what)
				}
			case <-deadline:
				t.Fatalf("the %s was still open %s after the stop", what, stopBound)
			}
		}
	}
}

// driveStream opens the subject's pact stream; after the stop the stream
// must end within the bound without carrying the word.
func driveStream(t *testing.T, s *stopWorld, sub *subject) func(*testing.T, time.Time, string) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/pacts/stream", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.Token(sub.agent))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return endsWithout(streamLines(t, resp), "pact stream")
}

// driveA2A follows the subject's task over A2A (SubscribeToTask): a
// person's message on it reaches the stream before the stop; after it the
// stream must end within the bound without carrying the word.
func driveA2A(t *testing.T, s *stopWorld, sub *subject) func(*testing.T, time.Time, string) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":%q}}`, sub.task)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/a2a/a/"+sub.agent, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.Token(sub.agent))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	lines := streamLines(t, resp)
	r := s.Admin("ana", "POST", "/tasks/"+sub.task+"/message", fmt.Sprintf(`{"body":"before","to":%q}`, sub.agent))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	for seen := false; !seen; {
		select {
		case line := <-lines:
			seen = strings.Contains(line, `"before"`)
		case <-time.After(20 * time.Second):
			t.Fatal("a message written before the stop did not reach the A2A stream")
		}
	}
	return endsWithout(lines, "A2A stream")
}

// drivePush has the subject, an A2A agent, push its task's changes to the
// receiver (CreateTaskPushNotificationConfig): a person's message on the
// task before the stop reaches it. After the stop nothing carrying the
// word may: the check waits until the subject's config has nothing due
// left, or an attempt after the stop was settled as failed (refused, since
// the board reads the task as the agent), so the content had its chance
// to go out.
func drivePush(t *testing.T, s *stopWorld, sub *subject) func(*testing.T, time.Time, string) {
	path := "push-" + sub.agent
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":%q,"url":%q,"token":"t"}}`,
		sub.task, s.recv.URL+"/"+path)
	req, err := http.NewRequest(http.MethodPost, s.URL+"/a2a/a/"+sub.agent, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.Token(sub.agent))
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(answer), `"result"`, "the config is made: %s", answer)
	r := s.Admin("ana", "POST", "/tasks/"+sub.task+"/message", fmt.Sprintf(`{"body":"before","to":%q}`, sub.agent))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Eventually(t, func() bool { return s.recv.has(path, "before") }, 45*time.Second, 20*time.Millisecond,
		"a push notification carries a message written before the stop")
	return func(t *testing.T, _ time.Time, word string) {
		if word == "" {
			return // nothing is held open: only what is sent after the stop counts
		}
		require.Eventually(t, func() bool {
			return s.Count(`SELECT count(*) FROM a2a_push_configs c JOIN tasks t ON t.id = c.task_id WHERE c.agent_id = ?
				AND ((c.attempts > 0 AND c.last_error IS NOT NULL) OR c.dead_at IS NOT NULL OR (t.change_seq <= c.delivered_seq
				AND (SELECT count(*) FROM task_messages m WHERE m.task_id = c.task_id) <= c.delivered_messages))`, sub.agent) == 1
		}, 45*time.Second, 20*time.Millisecond, "the subject's push config is settled")
		require.False(t, s.recv.has(path, word), "a push notification carried content written after the stop")
	}
}

// driveWebhook points the subject's pact delivery at the receiver; after
// the stop nothing carrying the word may be delivered to it. The check
// waits until no send of the subject's is pending, so a queued send had
// its chance to go out.
func driveWebhook(t *testing.T, s *stopWorld, sub *subject) func(*testing.T, time.Time, string) {
	_, err := s.Call(sub.agent, "set_pact_delivery", map[string]any{"mode": "webhook", "url": s.recv.URL + "/" + sub.agent,
		"mandate_id": sub.mandate})
	require.NoError(t, err)
	// A message before the stop is delivered: the webhook works.
	r := s.Admin("ana", "POST", "/pacts/"+sub.pact+"/messages", `{"body":"before"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Eventually(t, func() bool { return s.recv.has(sub.agent, "before") }, 45*time.Second, 20*time.Millisecond,
		"the webhook gets a message written before the stop")
	return func(t *testing.T, _ time.Time, word string) {
		require.Eventually(t, func() bool {
			return s.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = ? AND sent_at IS NULL AND dead_at IS NULL`, sub.agent) == 0
		}, 45*time.Second, 20*time.Millisecond, "the subject's sends are settled")
		require.True(t, word == "" || !s.recv.has(sub.agent, word), "a webhook delivery carried content written after the stop")
	}
}

// driveHooks: after the stop, the subject's hook call hands it nothing
// written after the stop (it may be refused).
func driveHooks(t *testing.T, s *stopWorld, sub *subject) func(*testing.T, time.Time, string) {
	hook := func() string {
		req, err := http.NewRequest(http.MethodPost, s.URL+"/hooks/a/"+sub.agent+"/user-prompt-submit",
			strings.NewReader(`{"session_id":"s1","prompt":"go on"}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+s.Token(sub.agent))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	// Before the stop, a person's message reaches it through the hook.
	r := s.Admin("ana", "POST", "/tasks/"+sub.task+"/message", fmt.Sprintf(`{"body":"before","to":%q}`, sub.agent))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Contains(t, hook(), "before", "the hook hands the subject a message written before the stop")
	return func(t *testing.T, _ time.Time, word string) {
		if answer := hook(); word != "" {
			require.NotContains(t, answer, word, "a hook's answer carried content written after the stop")
		}
	}
}

// driveHeld holds the tool (pact_wait or pact_events) as the subject;
// after the stop the held call must end within the bound, answering a
// refusal or without the word.
func driveHeld(tool string) agentDriver {
	return func(t *testing.T, s *stopWorld, sub *subject) func(*testing.T, time.Time, string) {
		cs, err := s.Connect(sub.agent)
		require.NoError(t, err)
		args := map[string]any{"mandate_id": sub.mandate, "seconds": 50}
		if tool == "pact_events" {
			// Read up to now, so only what comes next answers it.
			first, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{
				"mandate_id": sub.mandate, "seconds": 0}})
			require.NoError(t, err)
			var v map[string]any
			require.NoError(t, json.Unmarshal([]byte(first.Content[0].(*mcp.TextContent).Text), &v))
			args["since"] = v["next_since"]
		}
		type answer struct {
			text  string
			err   error
			ended time.Time
		}
		done := make(chan answer, 1)
		held := make(chan struct{})
		// A call the stop failed to end is given up when the test ends, so
		// that the board's close need not wait out its 50 seconds.
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go func() {
			close(held)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			a := answer{err: err, ended: time.Now()}
			if err == nil {
				a.text = res.Content[0].(*mcp.TextContent).Text
			}
			done <- a
		}()
		<-held
		require.Eventually(t, func() bool { return s.Kernel.Tools().Waiting() > 0 }, 10*time.Second, 5*time.Millisecond,
			"%s is held", tool)
		return func(t *testing.T, stopped time.Time, word string) {
			select {
			case a := <-done:
				require.NoError(t, a.err)
				if word != "" {
					require.NotContains(t, a.text, word, "the held %s answered with content written after the stop", tool)
				}
				require.LessOrEqual(t, a.ended.Sub(stopped), stopBound, "the held %s ended %s after the stop", tool, a.ended.Sub(stopped))
			case <-time.After(time.Until(stopped.Add(stopBound))):
				t.Fatalf("the held %s was still waiting %s after the stop", tool, stopBound)
			}
		}
	}
}
