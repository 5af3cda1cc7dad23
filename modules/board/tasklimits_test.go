package board_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/sdk/errs"
)

// A task body over board.MaxTaskBody characters and a result over
// board.MaxTaskResult are refused with invalid_request naming the field and
// the bound; the refusal changes nothing but its log entry, and a body or
// result at the bound is taken.
func TestTaskBodyAndResultAreBounded(t *testing.T) {
	w := newWorld(t)
	tasks := w.Count(`SELECT count(*) FROM tasks`)
	args := map[string]any{"project_id": "web", "title": "Too long", "mandate_id": w.Root("code-web"),
		"body": strings.Repeat("é", board.MaxTaskBody+1)}
	e := w.Refused(errs.InvalidRequest, "code-web", "pact_post", args)
	require.Contains(t, e.Message, "body is at most 100000 characters (this one has 100001)")
	require.Equal(t, tasks, w.Count(`SELECT count(*) FROM tasks`), "no task was written")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'pact_post' AND outcome = 'invalid_request'`))

	id := w.post("code-web", "web", "Just fits", map[string]any{"body": strings.Repeat("é", board.MaxTaskBody)})
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("gemini-web")})
	report := func(result string) map[string]any {
		return map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("gemini-web"), "result": result}
	}
	handoff := "\n\n## Handoff\n- Done: all"
	// The result is counted as JSON: the text, its escapes and its two quotes.
	quoted, _ := json.Marshal(handoff)
	tooLong := strings.Repeat("x", board.MaxTaskResult+1-len(quoted)) + handoff
	e = w.Refused(errs.InvalidRequest, "gemini-web", "pact_report", report(tooLong))
	require.Contains(t, e.Message, "result is at most 100000 characters of JSON (this one has 100001)")
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working' AND result IS NULL`, id),
		"the task is unchanged")
	w.OK("gemini-web", "pact_report", report(tooLong[1:]))
	w.VerifyLog()
}
