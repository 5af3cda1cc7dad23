package board_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pactboard/pact/modules/board"
	"github.com/stretchr/testify/require"
)

// a2aLines opens agent's stream (method with params) and hands back every
// line it sends, data and comment lines alike, closing when the stream
// ends; the stream is closed at the test's end.
func (w *world) a2aLines(agent, method string, params any) <-chan string {
	w.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w.T.Cleanup(cancel)
	req, err := w.a2aStreamRequest(ctx, agent, method, params)
	require.NoError(w.T, err)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(w.T, err)
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if sc.Text() != "" {
				lines <- sc.Text()
			}
		}
	}()
	return lines
}

// nextA2AEvent is the next JSON-RPC response a stream sends, past its
// comments; it fails the test when the stream ends or stays silent for
// within.
func nextA2AEvent(t *testing.T, lines <-chan string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case line, ok := <-lines:
			require.True(t, ok, "the stream ended early")
			if data, found := strings.CutPrefix(line, "data: "); found {
				var ev map[string]any
				require.NoError(t, json.Unmarshal([]byte(data), &ev))
				return ev
			}
		case <-deadline:
			t.Fatalf("no event within %s", within)
		}
	}
}

// a2aState is the state an event's statusUpdate carries.
func a2aState(t *testing.T, ev map[string]any) any {
	t.Helper()
	result, ok := ev["result"].(map[string]any)
	require.True(t, ok, "a result: %v", ev)
	update, ok := result["statusUpdate"].(map[string]any)
	require.True(t, ok, "a status update: %v", ev)
	return update["status"].(map[string]any)["state"]
}

// partText is the text of a message's or artifact's first part.
func partText(v any) any {
	return v.(map[string]any)["parts"].([]any)[0].(map[string]any)["text"]
}

// postOverA2A posts a task as a2a-web over A2A, answering at once, and
// returns it.
func postOverA2A(w *world, text string, metadata map[string]any) map[string]any {
	w.T.Helper()
	params := map[string]any{"message": userMessage(text, nil), "configuration": map[string]any{"returnImmediately": true}}
	if metadata != nil {
		params["metadata"] = metadata
	}
	return w.a2aResult("a2a-web", "SendMessage", params)["task"].(map[string]any)
}

// A task's history opens with the task as its poster asked for it (the
// title, then the body when there is one and it does not already start
// with it), and historyLength keeps only that many of its latest
// messages: one that covers the whole history, or more, keeps it all.
func TestA2AHistoryOpensWithThePostAndKeepsTheLatestMessages(t *testing.T) {
	w := newA2AWorld(t)
	id := postOverA2A(w, "Paint the fence", nil)["id"].(string)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "body": "Which colour?", "mandate_id": w.Root("code-web")})
	w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Blue", map[string]any{"taskId": id}),
		"configuration": map[string]any{"returnImmediately": true}})
	texts := func(task map[string]any) []any {
		var out []any
		for _, m := range task["history"].([]any) {
			out = append(out, partText(m))
		}
		return out
	}
	for _, c := range []struct {
		length int
		want   []any
	}{
		{1, []any{"Blue"}},
		{2, []any{"Which colour?", "Blue"}},
		{3, []any{"Paint the fence", "Which colour?", "Blue"}},
		{10, []any{"Paint the fence", "Which colour?", "Blue"}},
	} {
		got := w.a2aResult("a2a-web", "GetTask", map[string]any{"id": id, "historyLength": c.length})
		require.Equal(t, c.want, texts(got), "historyLength %d", c.length)
	}

	withBody := w.post("code-web", "web", "Fix the login", map[string]any{"body": "It fails one run in ten."})
	bare := w.post("code-web", "web", "Tidy the docs", nil)
	for id, want := range map[string]string{withBody: "Fix the login\n\nIt fails one run in ten.", bare: "Tidy the docs"} {
		got := w.a2aResult("a2a-web", "GetTask", map[string]any{"id": id})
		require.Equal(t, []any{want}, texts(got), "the post that opens the history")
	}
}

// A task's A2A status explains what it waits for: the question of one
// waiting for input, the approval of one waiting for a person; a task
// that waits for nothing carries no status message.
func TestA2AStatusSaysWhatATaskWaitsFor(t *testing.T) {
	w := newA2AWorld(t)
	working := postOverA2A(w, "Paint the fence", nil)["id"].(string)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": working, "mandate_id": w.Root("code-web")})
	asking := postOverA2A(w, "Paint the shed", nil)["id"].(string)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": asking, "mandate_id": w.Root("code-web")})
	w.OK("code-web", "pact_report", map[string]any{"task_id": asking, "status": "input_required", "mandate_id": w.Root("code-web"),
		"result": "Which colour?"})
	gated := postOverA2A(w, "Ship the fence", map[string]any{"action": "deploy.web"})
	require.Equal(t, "TASK_STATE_AUTH_REQUIRED", gated["status"].(map[string]any)["state"])
	for _, c := range []struct {
		id, state string
		says      any
	}{
		{working, "TASK_STATE_WORKING", nil},
		{asking, "TASK_STATE_INPUT_REQUIRED", "Which colour?"},
		{gated["id"].(string), "TASK_STATE_AUTH_REQUIRED", "The task waits for a person's approval before anyone may work on it."},
	} {
		status := w.a2aResult("a2a-web", "GetTask", map[string]any{"id": c.id})["status"].(map[string]any)
		require.Equal(t, c.state, status["state"])
		if c.says == nil {
			require.NotContains(t, status, "message", "a %s task explains nothing", c.state)
			continue
		}
		require.Contains(t, status, "message", "a %s task says what it waits for", c.state)
		require.Equal(t, c.says, partText(status["message"]), c.state)
	}
}

// A closed task's result artifact is text when the result is a string and
// the JSON value itself otherwise.
func TestA2AResultArtifactIsTextOnlyForAStringResult(t *testing.T) {
	w := newA2AWorld(t)
	for _, c := range []struct {
		result any
		part   map[string]any
	}{
		{"Painted.\n\n## Handoff\n- Done: the fence", map[string]any{"text": "Painted.\n\n## Handoff\n- Done: the fence"}},
		{map[string]any{"text": "Painted.", "handoff": "the fence"},
			map[string]any{"data": map[string]any{"text": "Painted.", "handoff": "the fence"}, "mediaType": "application/json"}},
	} {
		id := postOverA2A(w, "Paint the fence", nil)["id"].(string)
		w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
		w.OK("code-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("code-web"),
			"result": c.result})
		arts := w.a2aResult("a2a-web", "GetTask", map[string]any{"id": id})["artifacts"].([]any)
		require.Equal(t, "result", arts[0].(map[string]any)["artifactId"])
		require.Equal(t, []any{c.part}, arts[0].(map[string]any)["parts"], "result %v", c.result)
	}
}

// A blocking message on a task that waits for approval answers when the
// task next changes, not at once with the state it was sent in: the
// board's reads of an unchanged task are no change.
func TestABlockingMessageOnAGatedTaskAnswersWhenTheTaskMovesOn(t *testing.T) {
	w := newA2AWorld(t)
	id := w.post("code-web", "web", "Ship the fence", map[string]any{"action": "deploy.web", "delegate_to": "a2a-web",
		"mandate_id": w.Mandate("ana", "code-web", "*@project:web")})
	reads := func() int {
		return w.Count(`SELECT count(*) FROM entries WHERE agent_id = 'a2a-web' AND action = 'pact_message'`)
	}
	before := reads()
	done := make(chan map[string]any, 1)
	go func() {
		_, out := w.a2a("a2a-web", "SendMessage", map[string]any{"message": userMessage("Any news?", map[string]any{"taskId": id})})
		done <- out
	}()
	// The read before the message, the message, the read after it and the
	// first read of the following.
	require.Eventually(t, func() bool { return reads() >= before+4 }, 20*time.Second, 10*time.Millisecond,
		"the send follows the task after its message")
	w.decide("ana", id, "reject", "")
	select {
	case out := <-done:
		require.Nil(t, out["error"], "%v", out)
		task := out["result"].(map[string]any)["task"].(map[string]any)
		require.Equal(t, "TASK_STATE_REJECTED", task["status"].(map[string]any)["state"])
	case <-time.After(20 * time.Second):
		t.Fatal("the blocking send did not answer when the task was rejected")
	}
}

// A stream ends with the board's refusal when its agent is stopped
// mid-stream: the client learns why it ended.
func TestAStreamEndsWithTheRefusalWhenItsAgentIsStopped(t *testing.T) {
	w := newA2AWorld(t)
	id := postOverA2A(w, "Paint the fence", nil)["id"].(string)
	lines := w.a2aLines("a2a-web", "SubscribeToTask", map[string]any{"id": id})
	require.Contains(t, nextA2AEvent(t, lines, 20*time.Second)["result"], "task")
	require.NoError(t, w.SetAgentStatus("a2a-web", "paused"))
	e := a2aErrorOf(t, nextA2AEvent(t, lines, 20*time.Second))
	require.Contains(t, e["message"], "paused")
	select {
	case line, open := <-lines:
		require.False(t, open, "the stream goes on after its refusal: %s", line)
	case <-time.After(20 * time.Second):
		t.Fatal("the stream stays open after its refusal")
	}
}

// A stream sends a closing task's artifacts even when its result is the
// one it already carried (a question it asked earlier, answered, then
// given again as the result).
func TestAStreamSendsTheArtifactsOfAResultTheTaskAlreadyCarried(t *testing.T) {
	w := newA2AWorld(t)
	id := postOverA2A(w, "Paint the fence", nil)["id"].(string)
	result := map[string]any{"text": "Which colour?", "handoff": "Nothing done yet."}
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	w.OK("code-web", "pact_report", map[string]any{"task_id": id, "status": "input_required", "mandate_id": w.Root("code-web"),
		"result": result})
	w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Blue", map[string]any{"taskId": id}),
		"configuration": map[string]any{"returnImmediately": true}})
	lines := w.a2aLines("a2a-web", "SubscribeToTask", map[string]any{"id": id})
	first := nextA2AEvent(t, lines, 20*time.Second)["result"].(map[string]any)["task"].(map[string]any)
	require.Equal(t, "TASK_STATE_SUBMITTED", first["status"].(map[string]any)["state"])
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	require.Equal(t, "TASK_STATE_WORKING", a2aState(t, nextA2AEvent(t, lines, 20*time.Second)))
	w.OK("code-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("code-web"),
		"result": result})
	var got []any
	for {
		ev := nextA2AEvent(t, lines, 20*time.Second)["result"].(map[string]any)
		if art, ok := ev["artifactUpdate"].(map[string]any); ok {
			got = append(got, art["artifact"].(map[string]any)["artifactId"])
			continue
		}
		require.Equal(t, "TASK_STATE_COMPLETED", ev["statusUpdate"].(map[string]any)["status"].(map[string]any)["state"])
		break
	}
	require.Equal(t, []any{"result", "handoff"}, got)
}

// An idle stream sends a keepalive comment every so often (25 s; this
// board's Options.StreamBeat makes it 200 ms), so proxies keep it open, and
// goes on following its task after it.
func TestAnIdleA2AStreamKeepsAliveAndGoesOn(t *testing.T) {
	w := newWorldOf(t, board.New(board.Options{StreamBeat: 200 * time.Millisecond}))
	w.agent("a2a-web", "a2a", nil, "web")
	id := postOverA2A(w, "Paint the fence", nil)["id"].(string)
	lines := w.a2aLines("a2a-web", "SubscribeToTask", map[string]any{"id": id})
	require.Contains(t, nextA2AEvent(t, lines, 20*time.Second)["result"], "task")
	select {
	case line, ok := <-lines:
		require.True(t, ok, "the idle stream ended")
		require.Equal(t, ": keepalive", line)
	case <-time.After(20 * time.Second):
		t.Fatal("no keepalive within 20 s, where one is due every 200 ms")
	}
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	require.Equal(t, "TASK_STATE_WORKING", a2aState(t, nextA2AEvent(t, lines, 20*time.Second)))
}
