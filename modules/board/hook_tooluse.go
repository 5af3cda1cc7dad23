package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// recordToolUse logs a tool use of Claude Code as hook.post_tool_use under
// the mandate of the one task the agent holds, as a heartbeat of that task
// (docs/specs/behavior.md §9.4). With no task or several it logs nothing
// and says why. The call passes the gate and the chain's verification like
// a tool call; a refusal is logged and returned.
func (m *Module) recordToolUse(ctx context.Context, agent string, summary map[string]any) (map[string]any, error) {
	held, err := m.st.heldTasks(ctx, m.db, agent)
	if err != nil {
		return nil, err
	}
	switch len(held) {
	case 0:
		return map[string]any{"logged": false, "reason": "no task held"}, nil
	case 1:
	default:
		return map[string]any{"logged": false, "reason": "several tasks held"}, nil
	}
	t := held[0]
	e := ledger.Entry{Actor: "agent:" + agent, AgentID: agent, Action: "hook.post_tool_use", ProjectID: t.ProjectID,
		TaskID: t.ID, Payload: summary}
	err = m.log.Record(ctx, m.db, e, func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
		who, err := identity.Admit(ctx, m.db, tx, agent)
		if who != nil {
			e.OrgID = who.OrgID
		}
		if err != nil {
			return err
		}
		chain, err := m.mandates.Verify(ctx, tx, t.MandateID, agent)
		if err != nil {
			return err
		}
		e.MandateChain = chain.IDs()
		now, err := m.st.getTask(ctx, tx, t.ID, true)
		if err != nil {
			return err
		}
		if now == nil || now.Status != "working" || now.Assignee == nil || *now.Assignee != agent {
			return errs.E(errs.ClaimLost, "task %s is no longer claimed by %s; stop working on it", t.ID, agent)
		}
		p, err := loadProject(ctx, tx, t.ProjectID)
		if err != nil {
			return err
		}
		if err := refuseFrozen(p); err != nil {
			return err
		}
		return m.st.heartbeat(ctx, tx, t.ID, agent)
	})
	if err != nil {
		return nil, err
	}
	m.ident.Seen(agent)
	return map[string]any{"logged": true, "task_id": t.ID}, nil
}
