package board_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/logtest"
)

// When a stop (here a pause) ends the following of a remote task, the
// board cancels the remote task, and the remote worker's warning says
// whether that cancel failed: a remote that refuses the CancelTask is
// named in the warning ("cancel the remote task r-1", with the remote's
// words), while a remote that cancels it adds nothing to the warning but
// the refusal. This proves the result of the remote's CancelTask is read
// the right way round: a failed cancel is not swallowed, and a
// successful one is not reported as an error.
func TestTheRemoteWorkerWarnsOfARemoteCancelOnlyWhenItFailed(t *testing.T) {
	remote := func(cancelFails bool) *scriptedRemote {
		return newScriptedRemote(t, func(c remoteCall) (any, *a2a.Error) {
			task := taskState(a2a.StateWorking, "")
			switch c.Method {
			case a2a.MethodSendMessage:
				return a2a.SendMessageResponse{Task: &task}, nil
			case a2a.MethodCancelTask:
				if cancelFails {
					return nil, a2a.Errorf(a2a.CodeTaskNotCancelable, "the paint is already drying")
				}
				task.Status.State = a2a.StateCanceled
			}
			return task, nil
		})
	}
	canceling, refusing := remote(false), remote(true)
	logs := &logtest.Buffer{}
	w := remoteLogWorld(t, logs, "remote-ok", canceling.Server, "remote-no", refusing.Server)
	runKernel(t, w.Kernel)
	ok := w.post("code-web", "web", "Paint the fence", map[string]any{"delegate_to": "remote-ok"})
	no := w.post("code-web", "web", "Paint the gate", map[string]any{"delegate_to": "remote-no"})
	require.Eventually(t, func() bool {
		return len(canceling.got(a2a.MethodGetTask)) > 0 && len(refusing.got(a2a.MethodGetTask)) > 0
	}, 20*time.Second, 20*time.Millisecond, "the board sent both tasks and follows them")
	require.NoError(t, w.SetAgentStatus("remote-ok", "paused"))
	require.NoError(t, w.SetAgentStatus("remote-no", "paused"))
	require.Eventually(t, func() bool { return len(followWarnings(logs, ok)) > 0 && len(followWarnings(logs, no)) > 0 },
		20*time.Second, 20*time.Millisecond, "both ended followings are logged: %s", logs.String())
	require.Len(t, canceling.got(a2a.MethodCancelTask), 1)
	require.Len(t, refusing.got(a2a.MethodCancelTask), 1)
	failed := followWarningText(logs, no)
	require.Contains(t, failed, "cancel the remote task r-1", "a failed cancel is warned of")
	require.Contains(t, failed, "the paint is already drying")
	require.NotContains(t, followWarningText(logs, ok), "cancel the remote task", "a cancel that worked is no error")
}

// A blocking SendMessage follows its task, and a real failure while it
// follows is the answer: pausing the sending agent while the board holds
// its call wakes the following (a stop event) and the next read of the
// task is refused, so the agent gets that refusal as a JSON-RPC error, not
// the task as it stood. Only the end of the blocking window (50 s, not
// waited for here) answers with the task as it stands.
func TestABlockingSendAnswersARefusalThatEndsItsFollowing(t *testing.T) {
	w := newA2AWorld(t)
	answered := make(chan map[string]any, 1)
	go func() {
		_, out := w.a2a("a2a-web", "SendMessage", map[string]any{"message": userMessage("Hold the line", nil)})
		answered <- out
	}()
	require.Eventually(t, func() bool { return w.Count(`SELECT count(*) FROM tasks WHERE title = 'Hold the line'`) == 1 },
		20*time.Second, 20*time.Millisecond, "the task is posted")
	// Give the call time to reach its following after posting; a pause
	// earlier is refused just the same (the real code answers an error
	// either way), this only lets the test reach the following itself.
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, w.SetAgentStatus("a2a-web", "paused"))
	var out map[string]any
	select {
	case out = <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("the blocking send did not end when its agent was paused")
	}
	require.NotNil(t, out["error"], "the refusal is the answer: %v", out)
	e := a2aErrorOf(t, out)
	require.Equal(t, float64(a2a.CodeRefused), e["code"], "%v", e)
	require.Contains(t, e["message"], "paused", "%v", e)
	require.Nil(t, out["result"], "no task is answered: %v", out)
}

// A message with a push config on a task that already exists (a follow-up
// message, here to the task's assignee) sends the message, adds the push
// config for that task, and answers with the task: its id, and the
// config listed on it. This proves adding the config on a follow-up
// message is checked the right way round: a config that was added does
// not end the call with an empty answer.
func TestAFollowUpMessageWithAPushConfigAnswersTheTask(t *testing.T) {
	r := newPushReceiver(t)
	w := newPushWorld(t, r)
	task := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Push later", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": w.Root("code-web")})
	msg := userMessage("And the shed too", map[string]any{"taskId": task})
	got := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": msg,
		"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{"url": r.URL + "/later"}}})
	require.Equal(t, task, got["task"].(map[string]any)["id"], "the answer is the task: %v", got)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ? AND from_agent = 'a2a-web' AND body = 'And the shed too'`, task),
		"the message was sent")
	configs := w.a2aResult("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": task})
	require.Len(t, configs["configs"], 1, "the config was added: %v", configs)
	require.Equal(t, r.URL+"/later", configs["configs"].([]any)[0].(map[string]any)["url"])
}

// followWarningText is the first warning of a failed following of task with
// the lines it goes on over: hclog writes an error of several lines (a
// joined error) as indented lines under the warning's.
func followWarningText(logs *logtest.Buffer, task string) string {
	var out strings.Builder
	in := false
	for line := range strings.Lines(logs.String()) {
		switch {
		case !in && strings.Contains(line, followWarning) && strings.Contains(line, "task="+task):
			in = true
		case in && !strings.HasPrefix(line, " "):
			return out.String()
		case !in:
			continue
		}
		out.WriteString(line)
	}
	return out.String()
}
