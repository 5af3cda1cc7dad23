package board_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// Agents send the people at most five unanswered messages per task, each a
// notification; the sixth is refused limit_exceeded and leaves no message
// and no notification; a person's answer on the task lifts the cap.
func TestAgentsSendThePeopleAtMostFiveUnansweredMessagesPerTask(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Needs a person", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	toPeople := func(agent string) map[string]any {
		return map[string]any{"task_id": id, "mandate_id": w.Root(agent), "body": "please decide", "to": "human"}
	}
	notified := `SELECT count(*) FROM notifications WHERE kind = 'message' AND task_id = ?`
	for i := range 5 {
		w.OK([]string{"gemini-web", "code-web"}[i%2], "pact_message", toPeople([]string{"gemini-web", "code-web"}[i%2]))
	}
	require.Equal(t, 5, w.Count(notified, id))

	for _, agent := range []string{"gemini-web", "code-web"} {
		e := w.Refused(errs.LimitExceeded, agent, "pact_message", toPeople(agent))
		require.Contains(t, e.Message, "already sent the people 5 messages on task "+id+" that no person has answered")
	}
	require.Equal(t, 5, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ?`, id), "the refused messages are not stored")
	require.Equal(t, 5, w.Count(notified, id), "and nobody is notified of them")
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_message' AND outcome = 'limit_exceeded'`))

	r := w.Admin("ana", "POST", "/tasks/"+id+"/message", `{"body": "Looking at it", "to": "gemini-web"}`)
	require.Equal(t, 200, r.Status, r.Raw)
	w.OK("gemini-web", "pact_message", toPeople("gemini-web"))
	require.Equal(t, 6, w.Count(notified, id))
	w.VerifyLog()
}
