package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// remote is a JSON-RPC server that checks the client's headers and answers
// each method as the test says.
func remote(t *testing.T, answer func(w http.ResponseWriter, req Request)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/card" {
			if r.Header.Get("Authorization") != "Bearer k" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			_, _ = io.WriteString(w, `{"name":"R","supportedInterfaces":[{"url":"http://x/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
				"capabilities":{"streaming":true},"unknownField":1}`)
			return
		}
		require.Equal(t, http.MethodPost, r.Method)
		require.Equal(t, Version, r.Header.Get("A2A-Version"))
		require.Equal(t, "Bearer k", r.Header.Get("Authorization"))
		require.Equal(t, "application/json", r.Header.Get("Content-Type"))
		body, _ := io.ReadAll(r.Body)
		req, e := ParseRequest(body)
		require.Nil(t, e)
		answer(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestTheClientCallsAndReadsAnswersAndErrors(t *testing.T) {
	ctx := context.Background()
	srv := remote(t, func(w http.ResponseWriter, req Request) {
		switch req.Method {
		case MethodSendMessage:
			var p SendMessageRequest
			require.Nil(t, DecodeParams(req.Params, &p))
			require.True(t, p.Configuration.ReturnImmediately)
			_ = json.NewEncoder(w).Encode(Result(req.ID, SendMessageResponse{Task: &Task{ID: "r1", Status: TaskStatus{State: StateWorking}}}))
		case MethodGetTask:
			_ = json.NewEncoder(w).Encode(Failure(req.ID, Errorf(CodeTaskNotFound, "no task %s", "r2")))
		case MethodCancelTask:
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html>bad gateway</html>")
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(Result(req.ID, Task{ID: "x"}))
		}
	})
	c := &Client{URL: srv.URL + "/rpc", Authorization: "Bearer k", HTTP: srv.Client()}
	msg := Message{MessageID: "m", Role: RoleUser, Parts: []Part{TextPart("hi")}}
	got, err := c.SendMessage(ctx, SendMessageRequest{Message: &msg, Configuration: &SendMessageConfiguration{ReturnImmediately: true}})
	require.NoError(t, err)
	require.Equal(t, "r1", got.Task.ID)
	_, err = c.GetTask(ctx, "r2")
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, CodeTaskNotFound, e.Code)
	require.False(t, Transient(err), "the agent refused: asking again does not help")
	_, err = c.CancelTask(ctx, "r1")
	var status *StatusError
	require.ErrorAs(t, err, &status)
	require.Equal(t, "the agent answered 502 Bad Gateway", err.Error())
	require.True(t, Transient(err), "a proxy's 502 may pass")
	err = c.call(ctx, "Other", struct{}{}, nil)
	require.ErrorContains(t, err, "the agent answered 503")
	require.True(t, Transient(err))

	card, err := FetchCard(ctx, srv.Client(), srv.URL+"/card", "Bearer k")
	require.NoError(t, err)
	require.Equal(t, "R", card.Name)
	require.True(t, card.Capabilities.Streaming)
	_, err = FetchCard(ctx, srv.Client(), srv.URL+"/card", "")
	require.ErrorContains(t, err, "401")
	require.False(t, Transient(err), "a 401 stays one")
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "[") }))
	defer bad.Close()
	_, err = FetchCard(ctx, bad.Client(), bad.URL, "")
	require.ErrorContains(t, err, "not one")
	require.ErrorIs(t, err, ErrMalformed)
	require.False(t, Transient(err))
	bad.Close()
	_, err = FetchCard(ctx, bad.Client(), bad.URL, "")
	require.Error(t, err)
	require.True(t, Transient(err), "nobody listening: the network may come back")
}

func TestTheClientFollowsAStreamUntilToldOrEnded(t *testing.T) {
	ctx := context.Background()
	events := []string{`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"r","status":{"state":"TASK_STATE_WORKING"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"r","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"r","contextId":"c","status":{"state":"TASK_STATE_FAILED"}}}}`}
	// Atomic: a handler the client stopped listening to may still be
	// running when the test flips these for the next call.
	var fail, broken atomic.Bool
	srv := remote(t, func(w http.ResponseWriter, req Request) {
		require.Equal(t, MethodSubscribeToTask, req.Method)
		s := NewStream(w, req.ID)
		if fail.Load() {
			_ = s.Fail(Errorf(CodeUnsupportedOperation, "closed"))
			return
		}
		for _, ev := range events {
			var r struct{ Result StreamResponse }
			require.NoError(t, json.Unmarshal([]byte(ev), &r))
			// A client that stopped listening may have hung up: the
			// handler ends, as a real one would.
			if s.Send(r.Result) != nil || s.Comment("keepalive") != nil {
				return
			}
		}
		if broken.Load() {
			_, _ = fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\n\n")
		}
	})
	c := &Client{URL: srv.URL, Authorization: "Bearer k", HTTP: srv.Client()}
	var seen []StreamResponse
	require.NoError(t, c.SubscribeToTask(ctx, "r", func(ev StreamResponse) bool { seen = append(seen, ev); return ev.StatusUpdate == nil }))
	require.Len(t, seen, 2, "it stops where each says")
	require.Equal(t, "r", seen[0].Task.ID)
	require.Equal(t, StateCompleted, seen[1].StatusUpdate.Status.State)
	seen = nil
	err := c.SubscribeToTask(ctx, "r", func(ev StreamResponse) bool { seen = append(seen, ev); return true })
	require.NoError(t, err, "a stream that ends is no error")
	require.Len(t, seen, 3)
	broken.Store(true)
	require.ErrorContains(t, c.SubscribeToTask(ctx, "r", func(StreamResponse) bool { return true }), "not a JSON-RPC response")
	fail.Store(true)
	var e *Error
	require.ErrorAs(t, c.SubscribeToTask(ctx, "r", func(StreamResponse) bool { return true }), &e)
	require.Equal(t, CodeUnsupportedOperation, e.Code)
}

// flushes counts the flushes of a recorder, and fails every write once
// broken.
type flushes struct {
	*httptest.ResponseRecorder
	n      int
	broken bool
}

func (f *flushes) Flush() { f.n++; f.ResponseRecorder.Flush() }

func (f *flushes) Write(b []byte) (int, error) {
	if f.broken {
		return 0, io.ErrClosedPipe
	}
	return f.ResponseRecorder.Write(b)
}

func TestAStreamWritesItsHeadersOnceThenEvents(t *testing.T) {
	w := &flushes{ResponseRecorder: httptest.NewRecorder()}
	s := NewStream(w, json.RawMessage(`"s"`))
	require.NoError(t, s.Comment("early"))
	require.Empty(t, w.Body.String(), "no comment before the stream starts")
	require.NoError(t, s.Send(StreamResponse{Task: &Task{ID: "t", Status: TaskStatus{State: StateSubmitted}}}))
	require.NoError(t, s.Comment("keepalive"))
	require.NoError(t, s.Fail(Errorf(CodeInternal, "gone")))
	require.Equal(t, "text/event-stream", w.Header().Get("Content-Type"))
	require.Equal(t, "no-store", w.Header().Get("Cache-Control"))
	lines := strings.Split(strings.TrimSpace(w.Body.String()), "\n\n")
	require.Len(t, lines, 3)
	require.JSONEq(t, `{"jsonrpc":"2.0","id":"s","result":{"task":{"id":"t","status":{"state":"TASK_STATE_SUBMITTED"}}}}`,
		strings.TrimPrefix(lines[0], "data: "))
	require.Equal(t, ": keepalive", lines[1])
	require.JSONEq(t, `{"jsonrpc":"2.0","id":"s","error":{"code":-32603,"message":"gone"}}`, strings.TrimPrefix(lines[2], "data: "))
	require.Equal(t, 3, w.n, "each event and comment is flushed at once")
	w.broken = true
	require.ErrorIs(t, s.Send(StreamResponse{}), io.ErrClosedPipe)
	require.ErrorIs(t, s.Comment("x"), io.ErrClosedPipe)
	require.Equal(t, 3, w.n, "nothing written, nothing flushed")
}

// What is worth retrying: the remote's own trouble (5xx from 500 up, 408,
// 429, its internal error, a network failure), never its refusal.
func TestTransientIsTheRemotesTroubleOnly(t *testing.T) {
	for err, want := range map[error]bool{&StatusError{Code: 500}: true, &StatusError{Code: 503}: true, &StatusError{Code: 499}: false,
		&StatusError{Code: 408}: true, &StatusError{Code: 429}: true, &StatusError{Code: 401}: false,
		Errorf(CodeInternal, "x"): true, Errorf(CodeTaskNotFound, "x"): false, io.ErrUnexpectedEOF: true} {
		require.Equal(t, want, Transient(err), "%v", err)
	}
	require.False(t, Transient(nil))
}

// An event past what the client reads is an error, not the stream's end.
func TestAnEventTooLongIsAnError(t *testing.T) {
	srv := remote(t, func(w http.ResponseWriter, req Request) {
		s := NewStream(w, req.ID)
		require.NoError(t, s.Comment("x"))
		require.NoError(t, s.Send(StreamResponse{Message: &Message{MessageID: "m", Role: RoleAgent,
			Parts: []Part{TextPart(strings.Repeat("a", maxAnswer+10))}}}))
	})
	c := &Client{URL: srv.URL, Authorization: "Bearer k", HTTP: srv.Client()}
	err := c.SubscribeToTask(context.Background(), "r", func(StreamResponse) bool { return true })
	require.Error(t, err)
	require.NotErrorIs(t, err, context.Canceled)
}
