package board

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// maxHookTitles is how many new tasks a session message names.
const maxHookTitles = 5

// newTasksForSession tells a Claude Code session, at its start and each
// time Claude stops, about the open tasks it has not been told of
// (docs/specs/behavior.md §9.4). It lists them with pact_list (filter open)
// under the agent's root mandate, as an ordinary logged call, from the
// session's cursor, then moves the cursor: each task is reported once per
// session. It never claims.
func (m *Module) newTasksForSession(ctx context.Context, agent, session string, starting bool) (map[string]any, error) {
	root, cursor, err := m.svc.SessionStart(ctx, agent, session)
	if err != nil {
		return nil, err
	}
	args, _ := json.Marshal(map[string]any{"mandate_id": root, "filter": "open", "since": cursor, "limit": 50})
	res, err := m.tools.Call(ctx, agent, "pact_list", args)
	if err != nil {
		return nil, err
	}
	list, ok := res.(listOut)
	if !ok {
		return nil, fmt.Errorf("board.newTasksForSession: pact_list answered %T", res)
	}
	if err := m.svc.MoveSessionCursor(ctx, agent, session, list.NextSince); err != nil {
		return nil, err
	}
	if len(list.Tasks) == 0 {
		return map[string]any{}, nil
	}
	return map[string]any{"systemMessage": sessionMessage(agent, list, starting)}, nil
}

// sessionMessage is the text a session is shown about new tasks.
func sessionMessage(agent string, list listOut, starting bool) string {
	var b strings.Builder
	n := fmt.Sprint(len(list.Tasks))
	if list.HasMore {
		n += "+"
	}
	kind, after := "new", "Nothing was claimed. Ask Claude to pull work from PACT to start one."
	if starting {
		kind, after = "open", "Nothing was claimed. With auto-claim on, your next message may pick up a task delegated to you."
	}
	fmt.Fprintf(&b, "PACT: %s %s task(s) for %s:\n", n, kind, agent)
	for i, t := range list.Tasks {
		if i == maxHookTitles {
			fmt.Fprintf(&b, "  … and %d more\n", len(list.Tasks)-maxHookTitles)
			break
		}
		b.WriteString("  • " + firstRunes(t.Title, 100))
		if t.DelegateTo != nil && *t.DelegateTo == agent {
			b.WriteString(" (delegated to you)")
		}
		b.WriteString("\n")
	}
	b.WriteString(after)
	return b.String()
}

// firstRunes is s cut to n characters.
func firstRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
