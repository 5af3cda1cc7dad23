package board

import (
	"context"
)

// recordToolUse logs a tool use of Claude Code as a heartbeat of the one
// task the agent holds (Service.RecordToolUse); with no task or several it
// says why nothing was logged.
func (m *Module) recordToolUse(ctx context.Context, agent string, summary map[string]any) (map[string]any, error) {
	got, err := m.svc.RecordToolUse(ctx, agent, summary)
	switch {
	case err != nil:
		return nil, err
	case got.Held == 0:
		return map[string]any{"logged": false, "reason": "no task held"}, nil
	case got.Held > 1:
		return map[string]any{"logged": false, "reason": "several tasks held"}, nil
	}
	return map[string]any{"logged": true, "task_id": got.TaskID}, nil
}
