package board

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) claimTool() kernel.Tool {
	return kernel.Tool{
		Name: "pact_claim", Title: "Claim a task",
		Description: "Claim an open task before you start on it: exactly one agent wins, others get " +
			"already_claimed (then move on quietly). Use the task's delegated mandate when it has one. Keep the " +
			"claim alive with pact_report status=working at least every 20 minutes. reserve takes budget " +
			`up front, e.g. {"runs": 1}.`,
		Input: object([]string{"task_id", "mandate_id"}, map[string]*jsonschema.Schema{
			"task_id":    str(taskDesc),
			"mandate_id": str(mandateDesc + " It must cover the task's action on its project."),
			"exclusive":  boolean("Refuse (agent_busy) if you already hold a working task, so two sessions of one agent cannot both take one."),
			"reserve":    amounts(`Budget to take now, in the claim's own transaction, e.g. {"runs": 1}; no room left refuses the claim (limit_exceeded) and the task stays free.`),
		}),
		Run: m.claim,
	}
}

type claimArgs struct {
	TaskID    string         `json:"task_id"`
	MandateID string         `json:"mandate_id"`
	Exclusive bool           `json:"exclusive"`
	Reserve   map[string]any `json:"reserve"`
}

func (m *Module) claim(ctx context.Context, c *kernel.Call) (any, error) {
	var a claimArgs
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return nil, errs.E(errs.InvalidRequest, "pact_claim: %v", err)
	}
	tx := c.Tx
	reserve, err := mandate.CheckAmounts(a.Reserve, "reserve")
	if err != nil {
		return nil, err
	}
	chain, who, t, p, err := m.workOn(ctx, c, a.MandateID, a.TaskID)
	if err != nil {
		return nil, err
	}
	if postOnly[who.Client] {
		return nil, errs.E(errs.ScopeExceeded, "chat agents post and watch tasks; they do not claim them")
	}
	if t.DelegateTo != nil && *t.DelegateTo != who.ID {
		return nil, errs.E(errs.WrongAgent, "task %s is delegated to %s", t.ID, *t.DelegateTo)
	}
	if t.Status == authRequired {
		return nil, errs.E(errs.ApprovalPending, "task %s waits for a person's approval; it cannot be claimed yet", t.ID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return nil, err
	}
	if err := m.releaseStale(ctx, tx, []string{p.ID}); err != nil {
		return nil, err
	}
	if a.Exclusive {
		// Lock the agent row: two sessions of one agent serialise here.
		if _, err := tx.ExecContext(ctx, `SELECT id FROM agents WHERE id = ? FOR UPDATE`, who.ID); err != nil {
			return nil, err
		}
		var held []string
		if err := tx.NewRaw(`SELECT id::text FROM tasks WHERE assignee = ? AND status = 'working' LIMIT 1`, who.ID).Scan(ctx, &held); err != nil {
			return nil, err
		}
		if len(held) > 0 {
			return nil, errs.E(errs.AgentBusy, "agent %s already works on task %s; finish it first", who.ID, held[0])
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE tasks SET assignee = ?, assignee_mandate_id = ?, status = 'working', claimed_at = now()
		WHERE id = ? AND assignee IS NULL AND status = 'submitted'`, who.ID, chain.Leaf().ID, t.ID)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		now, err := getTask(ctx, tx, t.ID, false)
		if err != nil {
			return nil, err
		}
		if now.Assignee != nil {
			return nil, errs.E(errs.AlreadyClaimed, "task %s is already claimed by %s", t.ID, *now.Assignee)
		}
		state := now.Status
		if now.Deferred {
			state += " (deferred)"
		}
		return nil, errs.E(errs.InvalidRequest, "task %s is %s and cannot be claimed", t.ID, state)
	}
	if _, err := m.mandates.Consume(ctx, tx, chain, reserve, true); err != nil {
		return nil, err
	}
	if err := heartbeat(ctx, tx, t.ID, who.ID); err != nil {
		return nil, err
	}
	out := map[string]any{"ok": true, "task_id": t.ID, "status": working}
	if err := m.addBudget(ctx, c, chain, out); err != nil {
		return nil, err
	}
	m.claims.Run(ctx, tx, kernel.Claimed{AgentID: who.ID, TaskID: t.ID, ProjectID: p.ID, MandateID: chain.Leaf().ID.String()}, out)
	return out, nil
}

// addBudget adds what is left of each limit in the chain, when it has any.
func (m *Module) addBudget(ctx context.Context, c *kernel.Call, chain mandate.Chain, out map[string]any) error {
	left, err := m.mandates.Remaining(ctx, c.Tx, chain)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		out["budget"] = left
	}
	return nil
}
