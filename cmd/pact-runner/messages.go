package main

import (
	"context"
	"time"
	"unicode/utf8"
)

// readMessages reads the threads of the unread messages that woke
// pact_events, which marks them read, and logs each for the operator. The
// runner works on tasks, not messages: a person's answer to a task it
// deferred comes back on the task too (its answer, which the session
// that claims it again is given), and a message to the runner's agent
// otherwise has no reader. Unread, any of them would wake every
// pact_events at once (docs/events.md), so the runner would poll instead
// of waiting. It reports whether every thread was read.
func (r *runner) readMessages(ctx context.Context, messages []messageView) bool {
	read := map[string]bool{}
	for _, m := range messages {
		if m.TaskID == "" || read[m.TaskID] {
			continue
		}
		read[m.TaskID] = true
		if err := r.board.call(ctx, "pact_message", map[string]any{"mandate_id": r.root, "task_id": m.TaskID}, nil); err != nil {
			r.log.Warn("cannot read the messages on a task; waiting before the next pact_events", "task", m.TaskID, "error", err)
			return false
		}
	}
	for _, m := range messages {
		r.log.Info("a message to this agent, read and left to the task's next session", "task", m.TaskID, "from", m.From,
			"message", shorten(m.Body, 200))
	}
	return true
}

// shorten cuts s to at most n bytes, on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// messageWait is how long the runner waits before its next pact_events
// when a message that woke it could not be read.
const messageWait = 5 * time.Second
