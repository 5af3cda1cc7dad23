package board_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// a2a is one JSON-RPC request to agent's A2A endpoint with its token and
// A2A-Version 1.0; it returns the HTTP status and the decoded response.
func (w *world) a2a(agent, method string, params any) (int, map[string]any) {
	w.T.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	require.NoError(w.T, err)
	return w.a2aRaw(agent, w.Token(agent), string(body), map[string]string{"A2A-Version": "1.0"})
}

// a2aRaw is a2aPost without the response's headers.
func (w *world) a2aRaw(agent, token, body string, headers map[string]string) (int, map[string]any) {
	w.T.Helper()
	status, _, out := w.a2aPost(agent, token, body, headers)
	return status, out
}

// a2aEvents is a stream's whole answer: each event's JSON-RPC response.
func (w *world) a2aEvents(agent, method string, params any) []map[string]any {
	req, err := w.a2aStreamRequest(context.Background(), agent, method, params)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]any
			if json.Unmarshal([]byte(data), &ev) == nil {
				out = append(out, ev)
			}
		}
	}
	return out
}

// a2aStreamRequest is agent's JSON-RPC request of method with params, as
// an A2A client sends one; it returns errors rather than failing the test,
// so a goroutine may build it.
func (w *world) a2aStreamRequest(ctx context.Context, agent, method string, params any) (*http.Request, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL+"/a2a/a/"+agent, strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+w.Token(agent))
	req.Header.Set("A2A-Version", "1.0")
	return req, nil
}

// a2aResult is a successful call's result.
func (w *world) a2aResult(agent, method string, params any) map[string]any {
	w.T.Helper()
	status, out := w.a2a(agent, method, params)
	require.Equal(w.T, 200, status, "%v", out)
	require.Nil(w.T, out["error"], "%s: %v", method, out["error"])
	return out["result"].(map[string]any)
}

func userMessage(text string, extra map[string]any) map[string]any {
	m := map[string]any{"messageId": "m-" + text[:min(len(text), 8)], "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": text}}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func newA2AWorld(t *testing.T) *world {
	w := newWorld(t)
	w.agent("a2a-web", "a2a", nil, "web")
	return w
}

func TestAnA2AAgentPostsFollowsAndCancelsATask(t *testing.T) {
	w := newA2AWorld(t)
	task := w.a2aResult("a2a-web", "SendMessage", map[string]any{
		"message":       userMessage("Fix the login test\n\nIt fails one run in ten.", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)
	id := task["id"].(string)
	require.Equal(t, "web", task["contextId"])
	require.Equal(t, "TASK_STATE_SUBMITTED", task["status"].(map[string]any)["state"])
	history := task["history"].([]any)
	require.Len(t, history, 1)
	require.Equal(t, "ROLE_USER", history[0].(map[string]any)["role"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND title = 'Fix the login test' AND created_by = 'a2a-web'`, id))

	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "body": "Which browser?", "mandate_id": w.Root("code-web")})
	got := w.a2aResult("a2a-web", "GetTask", map[string]any{"id": id})
	require.Equal(t, "TASK_STATE_WORKING", got["status"].(map[string]any)["state"])
	history = got["history"].([]any)
	require.Len(t, history, 2)
	require.Equal(t, "ROLE_AGENT", history[1].(map[string]any)["role"])

	// A message on the task goes to its other side.
	w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Firefox", map[string]any{"taskId": id}),
		"configuration": map[string]any{"returnImmediately": true}})
	thread := w.OK("code-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	require.Contains(t, thread["messages"].([]any)[1].(map[string]any)["body"], "Firefox")

	// A blocking send answers when the task closes, with its result and
	// Handoff as artifacts.
	done := make(chan map[string]any, 1)
	go func() {
		done <- w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Any news?", map[string]any{"taskId": id})})
	}()
	time.Sleep(300 * time.Millisecond)
	w.OK("code-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("code-web"),
		"result": "Fixed the race.\n\n## Handoff\n- Done: the wait\n- Left / next: nothing"})
	var closed map[string]any
	select {
	case r := <-done:
		closed = r["task"].(map[string]any)
	case <-time.After(20 * time.Second):
		t.Fatal("the blocking send did not answer when the task closed")
	}
	require.Equal(t, "TASK_STATE_COMPLETED", closed["status"].(map[string]any)["state"])
	arts := closed["artifacts"].([]any)
	require.Len(t, arts, 2)
	require.Equal(t, "handoff", arts[1].(map[string]any)["artifactId"])
	require.Contains(t, arts[1].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"], "## Handoff")

	// CancelTask: the poster withdraws an open task; a closed one is not
	// cancelable.
	other := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Second task", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	canceled := w.a2aResult("a2a-web", "CancelTask", map[string]any{"id": other})
	require.Equal(t, "TASK_STATE_CANCELED", canceled["status"].(map[string]any)["state"])
	_, out := w.a2a("a2a-web", "CancelTask", map[string]any{"id": id})
	require.Equal(t, float64(-32002), out["error"].(map[string]any)["code"], "%v", out)
	w.VerifyLog()
}

func TestAnA2AStreamFollowsATaskToItsEnd(t *testing.T) {
	w := newA2AWorld(t)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "SendStreamingMessage",
		"params": map[string]any{"message": userMessage("Stream me", nil)}})
	req, err := http.NewRequest(http.MethodPost, w.URL+"/a2a/a/a2a-web", strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+w.Token("a2a-web"))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := make(chan map[string]any, 20)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev map[string]any
				_ = json.Unmarshal([]byte(data), &ev)
				events <- ev
			}
		}
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case ev, ok := <-events:
			require.True(t, ok, "the stream ended early")
			require.Equal(t, "s1", ev["id"])
			return ev["result"].(map[string]any)
		case <-time.After(20 * time.Second):
			t.Fatal("no event within 20 s")
		}
		return nil
	}
	first := next()["task"].(map[string]any)
	id := first["id"].(string)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	require.Equal(t, "TASK_STATE_WORKING", next()["statusUpdate"].(map[string]any)["status"].(map[string]any)["state"])
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "body": "On it", "mandate_id": w.Root("code-web")})
	said := next()["statusUpdate"].(map[string]any)["status"].(map[string]any)["message"].(map[string]any)
	require.Equal(t, "On it", said["parts"].([]any)[0].(map[string]any)["text"])
	w.OK("code-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("code-web"),
		"result": map[string]any{"text": "done", "handoff": "all of it"}})
	require.Equal(t, "result", next()["artifactUpdate"].(map[string]any)["artifact"].(map[string]any)["artifactId"])
	require.Equal(t, "handoff", next()["artifactUpdate"].(map[string]any)["artifact"].(map[string]any)["artifactId"])
	require.Equal(t, "TASK_STATE_COMPLETED", next()["statusUpdate"].(map[string]any)["status"].(map[string]any)["state"])
	select {
	case _, open := <-events:
		require.False(t, open, "the stream goes on after the task closed")
	case <-time.After(5 * time.Second):
		t.Fatal("the stream stays open after the task closed")
	}
}
