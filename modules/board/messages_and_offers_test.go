package board_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A message of exactly MaxMessage (8000) characters is within the limit:
// an agent's of 8000 two-byte characters (16000 bytes) and a person's of
// 8000 ASCII characters are both stored whole. This proves the limit is
// "at most 8000 characters", not "fewer than 8000", and that it counts
// characters rather than bytes; existing tests only try 8001.
func TestAMessageOfExactly8000CharactersIsSent(t *testing.T) {
	w := newWorld(t)
	id := w.post("code-web", "web", "Long talk", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})

	out := w.OK("gemini-web", "pact_message", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web"),
		"body": strings.Repeat("é", 8000)})
	require.Equal(t, "code-web", out["to"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ? AND from_agent = 'gemini-web'
		AND char_length(body) = 8000`, id), "the agent's 8000 characters are stored whole")

	got := w.Admin("val", "POST", "/tasks/"+id+"/message", `{"body": "`+strings.Repeat("x", 8000)+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ? AND from_human = 'val'
		AND char_length(body) = 8000`, id), "the person's 8000 characters are stored whole")
}

// A person's message that names nobody goes to the task's delegate when
// the task is delegated but not yet claimed, and to its creator when it is
// neither held nor delegated: val's message on a task code-web delegated
// to gemini-web reaches gemini-web (not code-web, the creator), and one on
// an undelegated open task reaches code-web. This proves personRecipient
// picks the delegate when there is one, before falling back to the creator.
func TestAPersonsMessageGoesToTheDelegateOfAnUnclaimedTask(t *testing.T) {
	w := newWorld(t)
	delegated := w.post("code-web", "web", "For gemini", map[string]any{"delegate_to": "gemini-web"})
	got := w.Admin("val", "POST", "/tasks/"+delegated+"/message", `{"body": "start with the docs"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "gemini-web", got.Body["to"], "the delegate, not the creator")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ? AND from_human = 'val'
		AND to_agent = 'gemini-web'`, delegated))

	open := w.post("code-web", "web", "For anyone", nil)
	got = w.Admin("val", "POST", "/tasks/"+open+"/message", `{"body": "why this?"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, "code-web", got.Body["to"], "nobody holds or is delegated the task: its creator")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_messages WHERE task_id = ? AND from_human = 'val'
		AND to_agent = 'code-web'`, open))
}
