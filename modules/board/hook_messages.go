package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/redact"
)

// handMessages hands the agent's unread messages to Claude in a hook's
// answer, as additional context it reads before going on, and marks them
// read (docs/specs/behavior.md §9.5). A halted or inactive agent gets
// none. Marking them read is logged as hook.messages, naming them.
func (m *Module) handMessages(ctx context.Context, c hookCall, answer map[string]any) error {
	who, err := identity.Admit(ctx, m.db, m.db, c.agent)
	if err != nil {
		return nil // halted, paused, banned: the messages wait
	}
	// Only where a live mandate lets it read tasks (SEC-025: a revoked
	// chain or a project left takes the messages there away).
	reach, err := m.mandates.Reach(ctx, m.db, c.agent, "task.read", who.Projects)
	if err != nil {
		return err
	}
	projects := []string{}
	for _, p := range reach {
		if row := who.Project(p); who.Client != "runner" || row == nil || !row.Production {
			projects = append(projects, p)
		}
	}
	if ready, err := m.st.anyUnread(ctx, c.agent, projects, ""); err != nil || !ready {
		return err
	}
	var msgs []messageView
	e := ledger.Entry{Actor: "agent:" + c.agent, AgentID: c.agent, OrgID: who.OrgID, Action: "hook.messages"}
	err = m.log.Record(ctx, m.db, e, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		var err error
		if msgs, err = m.svc.unreadMessages(ctx, tx, c.agent, projects, "", true); err != nil {
			return err
		}
		ids := make([]int64, len(msgs))
		for i, msg := range msgs {
			ids[i] = msg.ID
		}
		e.Payload = map[string]any{"event": c.event, "message_ids": ids}
		return nil
	})
	if err != nil || len(msgs) == 0 {
		return err
	}
	event := map[string]string{"post-tool-use": "PostToolUse", "user-prompt-submit": "UserPromptSubmit"}[c.event]
	extra := messagesBlock(msgs)
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
