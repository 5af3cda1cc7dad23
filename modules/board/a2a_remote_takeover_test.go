package board_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/modules/board"
)

// slowRemote is a remote A2A agent that does not stream: every message
// becomes task r-1, working until done is set, then completed with an
// artifact.
// painterCard is the card of a remote painter served at url: JSON-RPC at
// url/rpc, text in and out, no skills.
func painterCard(name, url string) a2a.AgentCard {
	return a2a.AgentCard{Name: name, Version: "1",
		SupportedInterfaces: []a2a.AgentInterface{{URL: url + "/rpc", ProtocolBinding: "JSONRPC", ProtocolVersion: a2a.Version}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}, Skills: []a2a.AgentSkill{}}
}

type slowRemote struct {
	*httptest.Server
	sends, gets atomic.Int32
	done        atomic.Bool
}

func newSlowRemote(t *testing.T) *slowRemote {
	r := &slowRemote{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if req.Method == http.MethodGet && req.URL.Path == a2a.CardPath {
			_ = json.NewEncoder(w).Encode(painterCard("Slow painter", r.URL))
			return
		}
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(req.Body).Decode(&call); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		task := a2a.Task{ID: "r-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}
		if r.done.Load() {
			task.Status.State = a2a.StateCompleted
			task.Artifacts = []a2a.Artifact{{ArtifactID: "a1", Name: "result", Parts: []a2a.Part{a2a.TextPart("Painted it.")}}}
		}
		var result any = task
		switch call.Method {
		case a2a.MethodSendMessage:
			r.sends.Add(1)
			result = a2a.SendMessageResponse{Task: &task}
		case a2a.MethodGetTask:
			r.gets.Add(1)
		default:
			t.Errorf("the slow remote got %s", call.Method)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": call.ID, "result": result})
	}))
	t.Cleanup(r.Close)
	return r
}

// A board that dies while it follows a remote task leaves its lease to run
// out; another board on the same database then takes the following over
// from the remote task the first recorded (docs/a2a.md, "Remote agents"):
// it sends nothing again, reads the remote task, and reports it done.
func TestAnotherBoardTakesOverARemoteTaskItsFollowerLeft(t *testing.T) {
	remote := newSlowRemote(t)
	first, second := board.New(), board.New()
	w := newWorldOf(t, first)
	w.agent("remote-web", "a2a-remote", nil, "web")
	w.Exec(`INSERT INTO a2a_remotes (agent_id, org_id, card_url, set_by) VALUES ('remote-web', 'default', ?, 'ana')`,
		remote.URL+a2a.CardPath)
	const lease = 2 * time.Second
	first.DriveRemotes(lease, 100*time.Millisecond)
	twin := w.Twin(second)
	second.DriveRemotes(lease, 100*time.Millisecond)

	stopFirst := runKernelUntil(t, w.Kernel)
	task := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-web"})
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM a2a_remote_tasks WHERE task_id = ? AND remote_task_id = 'r-1'`, task) == 1 &&
			remote.gets.Load() > 0
	}, 20*time.Second, 20*time.Millisecond, "the first board sent the task and follows it")
	stopFirst()
	// As a board killed mid-follow leaves it: its lease stands until it
	// runs out (a board that stops in order releases it).
	w.Exec(`UPDATE a2a_remote_tasks SET follower = 'a-dead-board', lease_until = now() + ?::interval WHERE task_id = ?`,
		lease.String(), task)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working' AND assignee = 'remote-web'`, task))

	runKernel(t, twin.Kernel)
	remote.done.Store(true)
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'completed'`, task) == 1
	}, 20*time.Second, 20*time.Millisecond, "the second board took the task over once the lease ran out, and reported it")
	require.Equal(t, int32(1), remote.sends.Load(), "the task was sent once: the second board followed the remote task recorded")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND result->>'remote_task_id' = 'r-1'
		AND result->>'text' LIKE '%Painted it.%'`, task))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM a2a_remote_tasks WHERE task_id = ? AND follower IS DISTINCT FROM 'a-dead-board'`, task))
	w.VerifyLog()
}
