package board_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/logtest"
)

// remoteCall is one request a scriptedRemote received: its JSON-RPC
// method ("card" for a fetch of its card) and params.
type remoteCall struct {
	Method string
	Params json.RawMessage
}

// message is the message a SendMessage call carried.
func (c remoteCall) message(t *testing.T) a2a.Message {
	t.Helper()
	var req a2a.SendMessageRequest
	require.NoError(t, json.Unmarshal(c.Params, &req))
	require.NotNil(t, req.Message)
	return *req.Message
}

// scriptedRemote is a remote A2A agent that does not stream (its card is
// painterCard's) and records every request it gets; answer decides what
// each JSON-RPC call gets back: a result, or else the error.
type scriptedRemote struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []remoteCall
	answer func(c remoteCall) (any, *a2a.Error)
}

func newScriptedRemote(t *testing.T, answer func(c remoteCall) (any, *a2a.Error)) *scriptedRemote {
	r := &scriptedRemote{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if req.Method == http.MethodGet && req.URL.Path == a2a.CardPath {
			r.record(remoteCall{Method: "card"})
			_ = json.NewEncoder(w).Encode(painterCard("Scripted painter", r.URL))
			return
		}
		var call a2a.Request
		if err := json.NewDecoder(req.Body).Decode(&call); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c := remoteCall{Method: call.Method, Params: call.Params}
		r.record(c)
		result, rpcErr := r.answer(c)
		if rpcErr != nil {
			_ = json.NewEncoder(w).Encode(a2a.Response{JSONRPC: "2.0", ID: call.ID, Error: rpcErr})
			return
		}
		_ = json.NewEncoder(w).Encode(a2a.Response{JSONRPC: "2.0", ID: call.ID, Result: result})
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *scriptedRemote) record(c remoteCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// got is the calls of method received so far (every call for "").
func (r *scriptedRemote) got(method string) []remoteCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []remoteCall
	for _, c := range r.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// taskState is remote task r-1 in state, its status message (id q1)
// saying said when said is not empty.
func taskState(state a2a.TaskState, said string) a2a.Task {
	task := a2a.Task{ID: "r-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}}
	if said != "" {
		task.Status.Message = &a2a.Message{MessageID: "q1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(said)}}
	}
	return task
}

// A delegated mandate with no run left is refused its claim, and the
// board then leaves the remote agent alone (docs/a2a.md, "Remote agents",
// step 1): it logs the refusal (limit_exceeded) for the task, fetches no
// card and sends nothing, and the task stays on the board, submitted and
// unassigned. This proves a refused pact_claim ends the following before
// anything reaches the remote.
func TestARefusedClaimSendsNothingToTheRemote(t *testing.T) {
	remote := newScriptedRemote(t, func(c remoteCall) (any, *a2a.Error) {
		task := taskState(a2a.StateWorking, "")
		if c.Method == a2a.MethodSendMessage {
			return a2a.SendMessageResponse{Task: &task}, nil
		}
		return task, nil
	})
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-web", remote.Server)
	runKernel(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web",
		"child_limits": map[string]any{"runs": 0}})
	require.Eventually(t, func() bool { return len(followWarnings(logs, task)) > 0 },
		20*time.Second, 20*time.Millisecond, "the refused claim is logged: %s", logs.String())
	require.Contains(t, followWarnings(logs, task)[0], "limit_exceeded")
	require.Empty(t, remote.got(""), "nothing reached the remote: no card fetched, no message sent")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted' AND assignee IS NULL`, task))
}

// A remote that answers the task with a message rather than a task has
// done the work (docs/a2a.md, "Remote agents", step 3): the board reports
// the task completed, the message's text its result, naming the remote
// message as the remote task.
func TestARemoteThatAnswersWithAMessageCompletesTheTask(t *testing.T) {
	remote := newScriptedRemote(t, func(c remoteCall) (any, *a2a.Error) {
		if c.Method != a2a.MethodSendMessage {
			return nil, a2a.Errorf(a2a.CodeUnsupportedOperation, "only SendMessage")
		}
		return a2a.SendMessageResponse{Message: &a2a.Message{MessageID: "m-9", ContextID: "c-9", Role: a2a.RoleAgent,
			Parts: []a2a.Part{a2a.TextPart("Painted it white.")}}}, nil
	})
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-web", remote.Server)
	runKernel(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the gate", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status IN ('completed', 'failed')`, task) == 1
	}, 20*time.Second, 20*time.Millisecond, "the board reported the task")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed'
		AND result->>'text' LIKE '%Painted it white.%' AND result->>'remote_task_id' = 'm-9'`, task), "%s", logs.String())
	require.Len(t, remote.got(a2a.MethodSendMessage), 1)
	require.Empty(t, followWarnings(logs, task))
}

// A remote that asks a question gets the answer a person gives (docs/a2a.md,
// "Remote agents", step 4): the board defers the task to people with the
// question; a person's resume with an answer puts it back, and the board
// claims it again and sends the answer as the next message of the same
// remote task (task r-1, message <task>/answer/<message>), marks the
// person's message read (the remote has it), and reports the task the
// remote then completed. The remote gets the task once and the answer
// once: the question is not handed to people again.
func TestARemotesQuestionIsDeferredAndThePersonsAnswerSentToIt(t *testing.T) {
	var mu sync.Mutex
	answered := false
	remote := newScriptedRemote(t, func(c remoteCall) (any, *a2a.Error) {
		mu.Lock()
		defer mu.Unlock()
		task := taskState(a2a.StateInputRequired, "Blue or green?")
		if c.Method == a2a.MethodSendMessage {
			var req a2a.SendMessageRequest
			if err := json.Unmarshal(c.Params, &req); err == nil && req.Message != nil && req.Message.TaskID == "r-1" {
				answered = true
			}
		}
		if answered {
			task = taskState(a2a.StateCompleted, "")
			task.Artifacts = []a2a.Artifact{{ArtifactID: "a1", Name: "result", Parts: []a2a.Part{a2a.TextPart("Painted it blue.")}}}
		}
		switch c.Method {
		case a2a.MethodSendMessage:
			return a2a.SendMessageResponse{Task: &task}, nil
		case a2a.MethodGetTask, a2a.MethodCancelTask:
			return task, nil
		}
		return nil, a2a.Errorf(a2a.CodeUnsupportedOperation, "no %s here", c.Method)
	})
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-web", remote.Server)
	runKernel(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'input_required' AND deferred`, task) == 1
	}, 20*time.Second, 20*time.Millisecond, "the remote's question was handed to people: %s", logs.String())
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND result #>> '{}' = 'Blue or green?'`, task))

	w.decide("ana", task, "resume", `{"answer": "Blue"}`)
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status IN ('completed', 'failed', 'input_required')`, task) == 1
	}, 20*time.Second, 20*time.Millisecond, "the board followed the task again after the answer: %s", logs.String())
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed'
		AND result->>'text' LIKE '%Painted it blue.%'`, task), "the remote got the answer and completed the task: %s", logs.String())

	sends := remote.got(a2a.MethodSendMessage)
	require.Len(t, sends, 2, "the task, then the answer")
	first, second := sends[0].message(t), sends[1].message(t)
	require.Equal(t, task+"/sent", first.MessageID)
	require.Empty(t, first.TaskID)
	require.Equal(t, "r-1", second.TaskID, "the answer goes on the same remote task")
	require.Equal(t, "c-1", second.ContextID)
	require.True(t, strings.HasPrefix(second.MessageID, task+"/answer/"), second.MessageID)
	require.Len(t, second.Parts, 1)
	require.Equal(t, "Blue", *second.Parts[0].Text)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ? AND to_agent = 'remote-web'
		AND body = 'Blue' AND read_at IS NOT NULL AND ? = ? || '/answer/' || id`, task, second.MessageID, task),
		"the person's answer is read: the remote has it, under that message's id")
	require.Empty(t, followWarnings(logs, task), logs.String())
}

// A remote task the remote no longer knows fails the board's task with
// the remote's refusal (docs/a2a.md, "Remote agents": a refusal of the
// remote's fails the task at once): the board sent the task, read it
// while it worked, and GetTask answered "task not found".
func TestARemoteTaskTheRemoteForgotFailsTheTask(t *testing.T) {
	remote := newScriptedRemote(t, func(c remoteCall) (any, *a2a.Error) {
		switch c.Method {
		case a2a.MethodSendMessage:
			task := taskState(a2a.StateWorking, "")
			return a2a.SendMessageResponse{Task: &task}, nil
		case a2a.MethodGetTask:
			return nil, a2a.Errorf(a2a.CodeTaskNotFound, "no task r-1 here")
		}
		return nil, a2a.Errorf(a2a.CodeUnsupportedOperation, "no %s here", c.Method)
	})
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-web", remote.Server)
	runKernel(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status IN ('completed', 'failed')`, task) == 1
	}, 20*time.Second, 20*time.Millisecond, "the board reported the task: %s", logs.String())
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'failed'
		AND result->>'text' LIKE '%could not do it%no task r-1 here%'`, task), "%s", logs.String())
	require.Len(t, remote.got(a2a.MethodSendMessage), 1)
	require.Len(t, remote.got(a2a.MethodGetTask), 1, "a refusal is not asked again")
}

// A stop of the remote agent while the board follows its task ends the
// following (docs/a2a.md, "Remote agents"): pausing the agent wakes the
// wait, its heartbeat is refused, and the board cancels the remote task
// (CancelTask r-1), warns of the refusal for the task, and reports
// nothing: the task stays working, for people to decide.
func TestPausingARemoteAgentCancelsTheRemoteTaskItWorksOn(t *testing.T) {
	remote := newScriptedRemote(t, func(c remoteCall) (any, *a2a.Error) {
		task := taskState(a2a.StateWorking, "")
		switch c.Method {
		case a2a.MethodSendMessage:
			return a2a.SendMessageResponse{Task: &task}, nil
		case a2a.MethodCancelTask:
			task.Status.State = a2a.StateCanceled
		}
		return task, nil
	})
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-web", remote.Server)
	runKernel(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool { return len(remote.got(a2a.MethodGetTask)) > 0 },
		20*time.Second, 20*time.Millisecond, "the board sent the task and follows it")
	require.NoError(t, w.SetAgentStatus("remote-web", "paused"))
	require.Eventually(t, func() bool { return len(remote.got(a2a.MethodCancelTask)) > 0 },
		20*time.Second, 20*time.Millisecond, "the board canceled the remote task: %s", logs.String())
	var req a2a.TaskRequest
	require.NoError(t, json.Unmarshal(remote.got(a2a.MethodCancelTask)[0].Params, &req))
	require.Equal(t, "r-1", req.ID)
	require.Eventually(t, func() bool { return len(followWarnings(logs, task)) > 0 },
		20*time.Second, 20*time.Millisecond, "the ended following is logged: %s", logs.String())
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, task), "nothing was reported")
	require.Len(t, remote.got(a2a.MethodSendMessage), 1)
}
