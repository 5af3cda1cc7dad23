package board_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestAnA2AMessageOfExactlyTheTaskLimitPostsATask: a SendMessage whose
// text is 100,000 characters (two-byte ones), a task's limit, posts the
// task whole; one character more is refused invalid params, posting
// nothing.
func TestAnA2AMessageOfExactlyTheTaskLimitPostsATask(t *testing.T) {
	w := newA2AWorld(t)
	at := "Limit\n" + strings.Repeat("é", 100_000-len("Limit\n"))
	task := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage(at, nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND char_length(body) = 100000`, task["id"]))

	status, out := w.a2a("a2a-web", "SendMessage", map[string]any{"message": userMessage(at+"é", nil),
		"configuration": map[string]any{"returnImmediately": true}})
	require.Equal(t, 200, status)
	require.Contains(t, mustJSONString(t, out["error"]), "at most 100000", "%v", out)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE created_by = 'a2a-web'`), "the refused one posted nothing")
}

// TestAnA2ATasksTitleIsItsFirstLineCutAt200Characters: the task an A2A
// message posts is titled by its first line; a line of 200 characters is
// the title whole, a longer one is cut to 199 and an ellipsis, 200 in all.
func TestAnA2ATasksTitleIsItsFirstLineCutAt200Characters(t *testing.T) {
	w := newA2AWorld(t)
	title := func(text string) string {
		task := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage(text, nil),
			"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)
		var got string
		require.NoError(t, w.DB.NewRaw(`SELECT title FROM tasks WHERE id = ?`, task["id"]).Scan(t.Context(), &got))
		return got
	}
	whole := strings.Repeat("ü", 200)
	require.Equal(t, whole, title(whole+"\n\nthe body"))
	cut := title(strings.Repeat("ö", 205) + "\n\nthe body")
	require.Equal(t, 200, utf8.RuneCountInString(cut))
	require.Equal(t, strings.Repeat("ö", 199)+"…", cut)
}
