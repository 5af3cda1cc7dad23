package board

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/sdk/errs"
)

// remoteTaskOf is a remote task in state, its status saying said (with a
// message id) and with artifacts, each a name and its text.
func remoteTaskOf(state a2a.TaskState, said string, artifacts ...string) *a2a.Task {
	t := &a2a.Task{ID: "r1", Status: a2a.TaskStatus{State: state, Timestamp: "2026-01-02T03:04:05Z"}}
	if said != "" {
		t.Status.Message = &a2a.Message{MessageID: "q1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(said)}}
	}
	for i := 0; i+1 < len(artifacts); i += 2 {
		t.Artifacts = append(t.Artifacts, a2a.Artifact{ArtifactID: "a" + artifacts[i], Name: artifacts[i],
			Parts: []a2a.Part{a2a.TextPart(artifacts[i+1])}})
	}
	return t
}

// Each state of a remote task is a report or none (docs/a2a.md, "Remote
// agents"): a closed task carries the artifacts' text and a Handoff (the
// remote's, else one built), which every closing report needs; a question
// goes to people unless it is the one answered already.
func TestRemoteOutcomeOfEachState(t *testing.T) {
	for _, state := range []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, "TASK_STATE_UNSPECIFIED", ""} {
		_, done := outcomeOf(remoteTaskOf(state, "busy"), "remote-x", "")
		require.False(t, done, "%s is no report", state)
	}
	cases := []struct {
		name         string
		task         *a2a.Task
		status, text string
		handoff      string // a part of it
	}{
		{"the remote's handoff", remoteTaskOf(a2a.StateCompleted, "", "result", "Did it", "handoff", "## Handoff\n- Done: it"),
			completed, "Did it", "## Handoff\n- Done: it"},
		{"a handoff named by its id", &a2a.Task{ID: "r1", Status: a2a.TaskStatus{State: a2a.StateCompleted},
			Artifacts: []a2a.Artifact{{ArtifactID: "handoff", Parts: []a2a.Part{a2a.TextPart("- Done: all")}}}},
			completed, "The remote agent remote-x ended the task completed.", "- Done: all"},
		{"a built handoff", remoteTaskOf(a2a.StateCompleted, "", "one", "First line\nmore", "two", "Second"),
			completed, "First line\nmore\n\nSecond", "- Done: First line\n- Remote task: r1 at remote-x"},
		{"the status says it", remoteTaskOf(a2a.StateCompleted, "All done."), completed, "All done.", "- Done: All done."},
		{"nothing said", remoteTaskOf(a2a.StateCompleted, ""), completed, "The remote agent remote-x ended the task completed.",
			"- Remote task: r1"},
		{"failed, saying why", remoteTaskOf(a2a.StateFailed, "Out of paint.", "log", "tried twice"), failed,
			"Out of paint.\n\ntried twice", "- Done: Out of paint."},
		{"rejected", remoteTaskOf(a2a.StateRejected, "Not my job."), failed, "Not my job.", "- Done: Not my job."},
		{"canceled", remoteTaskOf(a2a.StateCanceled, ""), canceled, "The remote agent remote-x ended the task canceled.", ""},
	}
	for _, c := range cases {
		out, done := outcomeOf(c.task, "remote-x", "")
		require.True(t, done, c.name)
		require.Equal(t, c.status, out.Status, c.name)
		result := out.Result.(map[string]any)
		require.Equal(t, c.text, result["text"], c.name)
		require.Contains(t, result["handoff"], c.handoff, c.name)
		require.Equal(t, "r1", result["remote_task_id"], c.name)
		raw, err := json.Marshal(out.Result)
		require.NoError(t, err)
		require.True(t, hasHandoff(raw), "%s: a closing report needs a Handoff", c.name)
		require.NoError(t, checkTaskResult(raw), c.name)
	}

	asks := remoteTaskOf(a2a.StateInputRequired, "Blue or green?")
	out, done := outcomeOf(asks, "remote-x", "")
	require.True(t, done)
	require.Equal(t, remoteOutcome{Status: inputRequired, Result: "Blue or green?"}, out)
	_, done = outcomeOf(asks, "remote-x", statusMark(asks))
	require.False(t, done, "the question answered already: the remote has not moved on yet")
	again := remoteTaskOf(a2a.StateInputRequired, "Which blue?")
	again.Status.Message.MessageID = "q2"
	out, done = outcomeOf(again, "remote-x", statusMark(asks))
	require.True(t, done, "a new question")
	require.Equal(t, "Which blue?", out.Result)
	out, _ = outcomeOf(remoteTaskOf(a2a.StateInputRequired, ""), "remote-x", "")
	require.Equal(t, "The remote agent remote-x needs more input.", out.Result)
	out, _ = outcomeOf(remoteTaskOf(a2a.StateAuthRequired, "Sign in at https://example.com/login"), "remote-x", "")
	require.Equal(t, remoteOutcome{Status: inputRequired,
		Result: "The remote agent remote-x asks for authorization: Sign in at https://example.com/login"}, out)
}

// Whatever a remote sends, the report fits a task's result: text and
// data parts, links, files it does not keep, and megabytes.
func TestRemoteOutcomeFitsATaskResult(t *testing.T) {
	link := "https://example.com/report.pdf"
	task := &a2a.Task{ID: "r1", Status: a2a.TaskStatus{State: a2a.StateCompleted}, Artifacts: []a2a.Artifact{{ArtifactID: "x",
		Parts: []a2a.Part{a2a.DataPart(json.RawMessage(`{"rows":3}`)), {URL: &link, Filename: "report.pdf"},
			{Raw: []byte("%PDF"), MediaType: "application/pdf"}}}}}
	out, _ := outcomeOf(task, "remote-x", "")
	require.Equal(t, "{\"rows\":3}\n\nreport.pdf "+link+"\n\n(a file of application/pdf, not kept)", out.Result.(map[string]any)["text"])

	for _, filler := range []string{"a", "\"", "\x01", "ก"} {
		huge := strings.Repeat(filler, 3<<20)
		out, done := outcomeOf(remoteTaskOf(a2a.StateCompleted, "", "result", huge, "handoff", huge), "remote-x", "")
		require.True(t, done)
		raw, err := json.Marshal(out.Result)
		require.NoError(t, err)
		require.NoError(t, checkTaskResult(raw), "%q", filler)
		text := out.Result.(map[string]any)["text"].(string)
		require.True(t, strings.HasSuffix(text, "(cut here: the rest is in the remote task r1)"), "%q", filler)
		asked, _ := outcomeOf(remoteTaskOf(a2a.StateInputRequired, huge), "remote-x", "")
		raw, err = json.Marshal(asked.Result)
		require.NoError(t, err)
		require.NoError(t, checkTaskResult(raw), "a question of %q", filler)
	}
}

// A status is known again by its message's id, else its time, else what
// it says; a stream event changes the report only with a new status.
func TestRemoteStatusMarkAndChanged(t *testing.T) {
	q := remoteTaskOf(a2a.StateInputRequired, "Blue or green?")
	require.Equal(t, "message:q1", statusMark(q))
	q.Status.Message.MessageID = ""
	require.Equal(t, "at:2026-01-02T03:04:05Z", statusMark(q))
	q.Status.Timestamp = ""
	other := remoteTaskOf(a2a.StateInputRequired, "Red?")
	other.Status.Message.MessageID, other.Status.Timestamp = "", ""
	require.NotEqual(t, statusMark(q), statusMark(other))
	same := remoteTaskOf(a2a.StateInputRequired, "Blue or green?")
	same.Status.Message.MessageID, same.Status.Timestamp = "", ""
	require.Equal(t, statusMark(q), statusMark(same))
	require.True(t, strings.HasPrefix(statusMark(q), "said:"))

	known := remoteTaskOf(a2a.StateInputRequired, "Blue or green?")
	snapshot := *known
	require.False(t, changed(known, a2a.StreamResponse{Task: &snapshot}), "the snapshot of the question answered")
	require.False(t, changed(known, a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "r1"}}))
	require.True(t, changed(known, a2a.StreamResponse{Task: remoteTaskOf(a2a.StateWorking, "")}))
	asksAgain := remoteTaskOf(a2a.StateInputRequired, "Which blue?")
	asksAgain.Status.Message.MessageID = "q2"
	require.True(t, changed(known, a2a.StreamResponse{Task: asksAgain}))
	require.True(t, changed(known, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "r1"}}))
	require.True(t, changed(known, a2a.StreamResponse{Message: &a2a.Message{MessageID: "m"}}))
}

// The message that sends a task is its title and body; an answer is the
// next message on the remote task, named after the board's message.
func TestRemoteMessage(t *testing.T) {
	task := &Task{ID: "t1", ProjectID: "web", Title: "Paint the fence", Body: "White."}
	m := remoteMessage(task, "", "", nil, 0)
	require.Equal(t, "t1/sent", m.MessageID)
	require.Equal(t, "Paint the fence\n\nWhite.", *m.Parts[0].Text)
	require.Equal(t, a2a.RoleUser, m.Role)
	require.Empty(t, m.TaskID)
	require.Equal(t, map[string]any{"pactTaskId": "t1", "pactProject": "web"}, m.Metadata)
	answer := "Blue"
	m = remoteMessage(task, "r1", "c1", &answer, 42)
	require.Equal(t, "t1/answer/42", m.MessageID)
	require.Equal(t, "Blue", *m.Parts[0].Text)
	require.Equal(t, "r1", m.TaskID)
	require.Equal(t, "c1", m.ContextID)
}

// The driver's retry against a real remote on loopback: an unreachable
// remote (503, then nobody listening) is called again, later each time,
// the claim kept alive between; a refusal of the remote's, or a 401,
// ends it at once; past giveUp it gives up, saying for how long and why;
// a refused heartbeat ends it with the refusal.
func TestRetryRemoteWhileTheRemoteIsUnreachable(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	answer := func(w http.ResponseWriter, r *http.Request) {
		switch n := calls.Add(1); {
		case n <= 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.Header.Get("Authorization") != "Bearer k":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			_ = json.NewEncoder(w).Encode(a2a.Result(json.RawMessage("1"), a2a.Task{ID: "r1",
				Status: a2a.TaskStatus{State: a2a.StateWorking}}))
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(answer))
	defer srv.Close()
	client := &a2a.Client{URL: srv.URL, Authorization: "Bearer k", HTTP: srv.Client()}
	var kept []time.Time
	keepAlive := func(context.Context) error { kept = append(kept, time.Now()); return nil }
	var task *a2a.Task
	start := time.Now()
	err := retryRemote(ctx, 20*time.Millisecond, time.Minute, func(ctx context.Context) (err error) {
		task, err = client.GetTask(ctx, "r1")
		return err
	}, keepAlive)
	require.NoError(t, err)
	require.Equal(t, "r1", task.ID)
	require.Len(t, kept, 2, "the claim is kept alive after each wait")
	require.GreaterOrEqual(t, kept[0].Sub(start), 20*time.Millisecond)
	require.GreaterOrEqual(t, kept[1].Sub(kept[0]), 40*time.Millisecond, "each wait twice the last")

	client.Authorization = "Bearer wrong"
	kept = nil
	calls.Store(2)
	err = retryRemote(ctx, time.Millisecond, time.Minute, func(ctx context.Context) error {
		_, err := client.GetTask(ctx, "r1")
		return err
	}, keepAlive)
	var failure *remoteFailure
	require.ErrorAs(t, err, &failure)
	require.Equal(t, "the agent answered 401 Unauthorized", err.Error())
	require.Empty(t, kept, "a 401 is not asked again")
	err = retryRemote(ctx, time.Millisecond, time.Minute, func(context.Context) error {
		return a2a.Errorf(a2a.CodeUnsupportedOperation, "closed")
	}, keepAlive)
	require.ErrorAs(t, err, &failure)
	require.Empty(t, kept, "the remote's refusal is not asked again")

	srv.Close() // nobody listens any more
	start = time.Now()
	err = retryRemote(ctx, 10*time.Millisecond, 100*time.Millisecond, func(ctx context.Context) error {
		_, err := client.GetTask(ctx, "r1")
		return err
	}, keepAlive)
	took := time.Since(start)
	require.ErrorAs(t, err, &failure)
	require.ErrorContains(t, err, "the remote agent could not be reached for 100ms: ")
	require.ErrorContains(t, err, "connection refused")
	require.GreaterOrEqual(t, took, 100*time.Millisecond)
	require.Less(t, took, 2*time.Second, "it gives up at giveUp, not a wait later")
	require.GreaterOrEqual(t, len(kept), 3)

	halted := errs.E(errs.SystemHalted, "the kill switch is on")
	err = retryRemote(ctx, time.Millisecond, time.Minute, func(context.Context) error { return errors.New("connection reset") },
		func(context.Context) error { return halted })
	require.Equal(t, halted, err, "a refused heartbeat ends the retry as it is, no failure of the remote's")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = retryRemote(cctx, time.Millisecond, time.Minute, func(context.Context) error { return errors.New("reset") }, keepAlive)
	require.ErrorIs(t, err, context.Canceled)
}
