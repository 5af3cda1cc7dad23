package board_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
)

// streamingRemote is a remote A2A agent whose card says it streams: every
// message becomes task r-1, working for good; a subscription to it either
// ends at once with nothing new (the task as it stands) or, when refuse is
// set, is refused. It records each request's method ("card" for a fetch of
// its card) and the Authorization header it came with.
type streamingRemote struct {
	*httptest.Server
	refuse bool
	mu     sync.Mutex
	calls  []string
	auths  []string
}

func newStreamingRemote(t *testing.T, refuse bool) *streamingRemote {
	r := &streamingRemote{refuse: refuse}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet && req.URL.Path == a2a.CardPath {
			r.record("card", req.Header.Get("Authorization"))
			card := painterCard("Streaming painter", r.URL)
			card.Capabilities.Streaming = true
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(card)
			return
		}
		var call a2a.Request
		if err := json.NewDecoder(req.Body).Decode(&call); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.record(call.Method, req.Header.Get("Authorization"))
		task := taskState(a2a.StateWorking, "")
		var result any = task
		switch call.Method {
		case a2a.MethodSubscribeToTask:
			s := a2a.NewStream(w, call.ID)
			if r.refuse {
				_ = s.Fail(a2a.Errorf(a2a.CodeUnsupportedOperation, "no streams today"))
				return
			}
			_ = s.Send(a2a.StreamResponse{Task: &task}) // nothing new, and the stream ends
			return
		case a2a.MethodSendMessage:
			result = a2a.SendMessageResponse{Task: &task}
		case a2a.MethodCancelTask:
			task.Status.State = a2a.StateCanceled
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(a2a.Response{JSONRPC: "2.0", ID: call.ID, Result: result})
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *streamingRemote) record(method, auth string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls, r.auths = append(r.calls, method), append(r.auths, auth)
}

// got is how many requests of method the remote received so far, and the
// Authorization header of the last of them.
func (r *streamingRemote) got(method string) (n int, auth string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, m := range r.calls {
		if m == method {
			n, auth = n+1, r.auths[i]
		}
	}
	return n, auth
}

// streamingWorld follows the tasks delegated to remote-web, whose card is
// remote's, with a poll period of an hour: a wait that does not end on a
// stream lasts the whole window (20 s under the default lease), longer
// than these tests look.
func streamingWorld(t *testing.T, logs *logtest.Buffer, remote *streamingRemote) *world {
	w := remoteLogWorld(t, logs, "remote-web", remote.Server)
	w.board.DriveRemotes(time.Minute, time.Hour)
	runKernel(t, w.Kernel)
	return w
}

// A stream that ends having said nothing new is no reason to read the
// remote task at once (a2a_remote_retry.go, wait): the board sends the
// task, subscribes to it, and when the stream ends with the task as it
// stood it waits its poll period before it reads or subscribes again. So a
// remote whose streams end at once gets one subscription and no GetTask
// while the board waits, not a subscription and a read in a loop. The
// quiet second and a half the test looks is far within the 20 s window.
func TestAStreamThatEndsWithNothingNewIsNotReadAgainAtOnce(t *testing.T) {
	remote := newStreamingRemote(t, false)
	logs := &logtest.Buffer{}
	w := streamingWorld(t, logs, remote)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool { n, _ := remote.got(a2a.MethodSubscribeToTask); return n > 0 },
		20*time.Second, 20*time.Millisecond, "the board sent the task and subscribed to it: %s", logs.String())
	time.Sleep(1500 * time.Millisecond) // the board waits its poll period: nothing should come
	subs, _ := remote.got(a2a.MethodSubscribeToTask)
	gets, _ := remote.got(a2a.MethodGetTask)
	sends, _ := remote.got(a2a.MethodSendMessage)
	require.Equal(t, 1, sends)
	require.Equal(t, 1, subs, "a stream that said nothing new is not subscribed to again at once")
	require.Zero(t, gets, "a stream that said nothing new is no reason to read the task")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, task))
	require.Empty(t, followWarnings(logs, task), logs.String())
}

// A refused stream is read again at once, but only once in a row (wait's
// comment: a refused stream is mostly a task that closed since it was
// read): a remote that refuses every subscription gets the
// first refused, a GetTask at once, the second refused, and then nothing
// for the poll period: the board does not subscribe and read in a loop
// while the remote refuses its streams.
func TestARemoteThatRefusesItsStreamsIsReadOnceThenPolled(t *testing.T) {
	remote := newStreamingRemote(t, true)
	logs := &logtest.Buffer{}
	w := streamingWorld(t, logs, remote)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool { n, _ := remote.got(a2a.MethodSubscribeToTask); return n >= 2 },
		20*time.Second, 20*time.Millisecond, "the refused stream was followed by a read and a new subscription: %s", logs.String())
	time.Sleep(1500 * time.Millisecond) // two refusals in a row: the board waits its poll period
	subs, _ := remote.got(a2a.MethodSubscribeToTask)
	gets, _ := remote.got(a2a.MethodGetTask)
	require.Equal(t, 2, subs, "after two refused streams in a row the board waits")
	require.Equal(t, 1, gets, "the task was read once, right after the first refusal")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, task),
		"a refused stream fails nothing: the task is read instead")
	require.Empty(t, followWarnings(logs, task), logs.String())
}

// While a remote agent works, the board keeps its claim alive with
// heartbeats (pact_report status=working, docs/a2a.md, "Remote agents",
// step 2): the first before it first reads the remote task, then more
// while it works (how often: TestAHeartbeatIsDueHalfABeatAfterTheLast).
// With a lease of 6 s the log shows a heartbeat before the remote's first
// GetTask, then two more, and the claim kept.
func TestTheBoardHeartbeatsARemoteTaskAtOnceAndOftenEnough(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.StaleAfter = 6 * time.Second })
	remote := newScriptedRemote(t, func(c remoteCall) (any, *a2a.Error) {
		task := taskState(a2a.StateWorking, "")
		if c.Method == a2a.MethodSendMessage {
			return a2a.SendMessageResponse{Task: &task}, nil
		}
		return task, nil
	})
	w.agent("remote-web", "a2a-remote", nil, "web")
	w.Exec(`INSERT INTO a2a_remotes (agent_id, org_id, card_url, set_by) VALUES ('remote-web', 'default', ?, 'ana')`,
		remote.URL+a2a.CardPath)
	w.board.DriveRemotes(time.Minute, 100*time.Millisecond)
	runKernel(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	const beats = `SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'pact_report' AND e.task_id = ? AND e.agent_id = 'remote-web' AND e.outcome = 'ok'
		AND p.content->>'status' = 'working'`
	require.Eventually(t, func() bool { return len(remote.got(a2a.MethodGetTask)) > 0 },
		20*time.Second, 20*time.Millisecond, "the board sent the task and reads it")
	require.GreaterOrEqual(t, w.Count(beats, task), 1, "a heartbeat came before the first read")
	require.Eventually(t, func() bool { return w.Count(beats, task) >= 3 },
		30*time.Second, 50*time.Millisecond, "the board heartbeats while the remote works")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working' AND assignee = 'remote-web'`, task),
		"the claim was kept")
}

// An approver who names a remote's card again without an authorization
// keeps the one set before (docs/a2a.md, "Remote agents": empty keeps the
// one set before): the board reads the card with it, as the remote sees.
// When that sealed value no longer opens (here its sealed bytes were
// altered at rest),
// the board refuses, invalid_request, "the authorization set before no
// longer opens", reading no card; giving "-" clears it and is taken.
func TestAnEmptyAuthorizationKeepsTheOneSetBeforeOrIsRefusedWhenItNoLongerOpens(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.A2AAllowPrivate = true })
	remote := newStreamingRemote(t, false)
	w.agent("remote-web", "a2a-remote", nil, "web")
	card := remote.URL + a2a.CardPath
	got := w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+card+`", "authorization": "Bearer s3cret-token"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	n, auth := remote.got("card")
	require.Equal(t, 1, n)
	require.Equal(t, "Bearer s3cret-token", auth)

	got = w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+card+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	n, auth = remote.got("card")
	require.Equal(t, 2, n)
	require.Equal(t, "Bearer s3cret-token", auth, "the card was read with the authorization set before")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM a2a_remotes WHERE agent_id = 'remote-web' AND auth_header IS NOT NULL
		AND auth_header NOT LIKE '%s3cret%'`), "the one set before is kept, sealed")

	w.Exec(`UPDATE a2a_remotes SET auth_header = left(auth_header, -4) || 'AAAA' WHERE agent_id = 'remote-web'`)
	got = w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+card+`"}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
	require.Contains(t, got.Raw, "the authorization set before no longer opens")
	n, _ = remote.got("card")
	require.Equal(t, 2, n, "no card is read with an authorization that does not open")

	got = w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+card+`", "authorization": "-"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	n, auth = remote.got("card")
	require.Equal(t, 3, n)
	require.Empty(t, auth, "- clears it")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM a2a_remotes WHERE agent_id = 'remote-web' AND auth_header IS NULL`))
}

// The operation that names a remote agent's card is logged under the
// agent (entries.agent_id), so the agent's history shows who named its
// card; a refusal (an agent of another client) names no agent.
func TestNamingARemoteCardIsLoggedUnderTheAgent(t *testing.T) {
	w := configWorld(t, kerneltest.Options{}, func(c *boot.Config) { c.A2AAllowPrivate = true })
	remote := newStreamingRemote(t, false)
	w.agent("remote-web", "a2a-remote", nil, "web")
	got := w.Admin("ana", "PUT", "/agents/remote-web/a2a-remote", `{"card_url": "`+remote.URL+a2a.CardPath+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent.a2a_remote' AND outcome = 'ok'
		AND agent_id = 'remote-web'`))
	got = w.Admin("ana", "PUT", "/agents/code-web/a2a-remote", `{"card_url": "`+remote.URL+a2a.CardPath+`"}`)
	require.Equal(t, http.StatusBadRequest, got.Status, got.Raw)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent.a2a_remote' AND outcome <> 'ok'
		AND agent_id IS NULL`), "the refusal names no agent")
}
