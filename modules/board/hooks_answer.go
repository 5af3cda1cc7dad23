package board

import (
	"context"
	"fmt"

	"github.com/pactboard/pact/sdk/errs"
)

// answerHook answers one hook event (docs/specs/behavior.md §9.4): what
// Claude Code reads from the hook's stdout. A board refusal is an answer,
// not an HTTP error: the hook must never break the session.
func (m *Module) answerHook(ctx context.Context, c hookCall) (map[string]any, error) {
	var answer map[string]any
	var err error
	switch c.event {
	case "post-tool-use":
		answer, err = m.recordToolUse(ctx, c.agent, summarizeToolUse(c.hook))
	case "stop", "session-start":
		answer, err = m.newTasksForSession(ctx, c.agent, c.session, c.event == "session-start")
	case "user-prompt-submit":
		answer, err = m.autoClaim(ctx, c)
	}
	if e, ok := errs.As(err); ok && errs.IsRefusal(err) {
		if c.event == "post-tool-use" {
			return map[string]any{"logged": false, "error": e.Code, "message": e.Message}, nil
		}
		return map[string]any{"systemMessage": fmt.Sprintf("PACT: the board refused (%s): %s", e.Code, e.Message)}, nil
	}
	if err != nil {
		return nil, err
	}
	if c.event == "post-tool-use" || c.event == "user-prompt-submit" {
		if err := m.handMessages(ctx, c, answer); err != nil {
			return nil, err
		}
	}
	return answer, nil
}
