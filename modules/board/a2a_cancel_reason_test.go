package board_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A poster canceling over A2A may say why in the request's metadata; the
// task keeps those words as its cancel note. A reason left out, or only
// spaces, leaves the board's own words, since pact_cancel needs a reason.
func TestAnA2ACancelKeepsThePostersReasonOrTheBoardsOwn(t *testing.T) {
	w := newA2AWorld(t)
	for _, c := range []struct {
		name     string
		metadata map[string]any
		note     string
	}{
		{"given", map[string]any{"reason": "The client changed its mind"}, "The client changed its mind"},
		{"blank", map[string]any{"reason": "   "}, "canceled by its poster over A2A"},
		{"none", nil, "canceled by its poster over A2A"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Task "+c.name, nil),
				"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
			params := map[string]any{"id": id}
			if c.metadata != nil {
				params["metadata"] = c.metadata
			}
			canceled := w.a2aResult("a2a-web", "CancelTask", params)
			require.Equal(t, "TASK_STATE_CANCELED", canceled["status"].(map[string]any)["state"])
			require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'canceled'
				AND result->>'by' = 'a2a-web' AND result->>'note' = ?`, id, c.note))
		})
	}
}
