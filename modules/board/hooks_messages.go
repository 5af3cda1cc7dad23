package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/pactboard/pact/core/redact"
)

// handMessages hands the agent's unread messages (Service.HandMessages) to
// Claude in a hook's answer, as additional context it reads before going
// on (docs/specs/behavior.md §9.5).
func (m *Module) handMessages(ctx context.Context, c hookCall, answer map[string]any) error {
	msgs, err := m.svc.HandMessages(ctx, c.agent, c.event)
	if err != nil || len(msgs) == 0 {
		return err
	}
	event := map[string]string{"post-tool-use": "PostToolUse", "user-prompt-submit": "UserPromptSubmit"}[c.event]
	extra := messagesBlock(messageViews(msgs, true))
	if out, ok := answer["hookSpecificOutput"].(map[string]any); ok {
		if before, _ := out["additionalContext"].(string); before != "" {
			extra = before + "\n\n" + extra
		}
	}
	answer["hookSpecificOutput"] = map[string]any{"hookEventName": event, "additionalContext": extra}
	note := fmt.Sprintf("PACT: %d new message(s) handed to Claude.", len(msgs))
	if before, _ := answer["systemMessage"].(string); before != "" {
		note = before + "\n" + note
	}
	answer["systemMessage"] = note
	return nil
}

// messagesBlock is how messages reach Claude: framed as information from
// other agents or people, never as instructions with authority.
func messagesBlock(msgs []messageView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[PACT board] %d new message(s) for you from other agents or people. %s\n", len(msgs), messageFrame)
	for _, msg := range msgs {
		fmt.Fprintf(&b, "- From %s on task %s ('%s'): %s\n", msg.From, msg.TaskID, firstRunes(msg.TaskTitle, 80),
			firstRunes(redact.Text(msg.Body), 4000))
	}
	b.WriteString("Answer with pact_message on the same task if they asked you something.")
	return b.String()
}
