package board

import (
	"context"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) addClaim(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_claim", Title: "Claim a task",
		Description: "Claim an open task before you start on it: exactly one agent wins, others get " +
			"already_claimed (then move on quietly). Use the task's delegated mandate when it has one. Keep the " +
			"claim alive with pact_report status=working at least every 20 minutes. reserve takes budget " +
			`up front, e.g. {"runs": 1}.`,
	}, m.claim)
}

type claimIn struct {
	TaskID    string         `json:"task_id" jsonschema:"The task's id (a UUID, from pact_list)."`
	MandateID string         `json:"mandate_id" jsonschema:"The id of the mandate you act under: one held by you (see pact_whoami), or the delegated mandate of the task you work on. It must cover the task's action on its project."`
	Exclusive bool           `json:"exclusive,omitempty" jsonschema:"Refuse (agent_busy) if you already hold a working task, so two sessions of one agent cannot both take one."`
	Reserve   kernel.Amounts `json:"reserve,omitempty" jsonschema:"Budget to take now, in the claim's own transaction, e.g. {\"runs\": 1}; no room left refuses the claim (limit_exceeded) and the task stays free."`
}

// claimOut is a claim's answer. Credential and CredentialNote are what the
// claim hooks add (kernel.ClaimHooks; the credentials module today).
type claimOut struct {
	OK             bool               `json:"ok" jsonschema:"Always true: the task is yours."`
	TaskID         string             `json:"task_id" jsonschema:"The task you claimed."`
	Status         string             `json:"status" jsonschema:"working."`
	Budget         map[string]float64 `json:"budget,omitempty" jsonschema:"What is left of each limit of your mandate's chain, when it has any."`
	Credential     map[string]any     `json:"credential,omitempty" jsonschema:"A credential for this claim's mandate chain, held by your registered key: format, external_id and the credential itself."`
	CredentialNote string             `json:"credential_note,omitempty" jsonschema:"Why no credential was issued with this claim."`
}

func (m *Module) claim(ctx context.Context, c *kernel.Call, a claimIn) (claimOut, error) {
	tx := c.Tx
	reserve, err := mandate.CheckAmounts(a.Reserve, "reserve")
	if err != nil {
		return claimOut{}, err
	}
	chain, who, t, p, err := m.workOn(ctx, c, a.MandateID, a.TaskID)
	if err != nil {
		return claimOut{}, err
	}
	if postOnly[who.Client] {
		return claimOut{}, errs.E(errs.ScopeExceeded, "chat agents post and watch tasks; they do not claim them")
	}
	if t.DelegateTo != nil && *t.DelegateTo != who.ID {
		return claimOut{}, errs.E(errs.WrongAgent, "task %s is delegated to %s", t.ID, *t.DelegateTo)
	}
	if t.Status == authRequired {
		return claimOut{}, errs.E(errs.ApprovalPending, "task %s waits for a person's approval; it cannot be claimed yet", t.ID)
	}
	if err := requireScope(chain, mandate.BoardScope(t.Action, p.ID)); err != nil {
		return claimOut{}, err
	}
	if err := m.releaseStale(ctx, tx, []string{p.ID}); err != nil {
		return claimOut{}, err
	}
	if a.Exclusive {
		// Lock the agent row: two sessions of one agent serialise here.
		if _, err := tx.ExecContext(ctx, `SELECT id FROM agents WHERE id = ? FOR UPDATE`, who.ID); err != nil {
			return claimOut{}, err
		}
		var held []string
		if err := tx.NewRaw(`SELECT id::text FROM tasks WHERE assignee = ? AND status = 'working' LIMIT 1`, who.ID).Scan(ctx, &held); err != nil {
			return claimOut{}, err
		}
		if len(held) > 0 {
			return claimOut{}, errs.E(errs.AgentBusy, "agent %s already works on task %s; finish it first", who.ID, held[0])
		}
	}
	res, err := tx.ExecContext(ctx, `UPDATE tasks SET assignee = ?, assignee_mandate_id = ?, status = 'working', claimed_at = now()
		WHERE id = ? AND assignee IS NULL AND status = 'submitted'`, who.ID, chain.Leaf().ID, t.ID)
	if err != nil {
		return claimOut{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		now, err := getTask(ctx, tx, t.ID, false)
		if err != nil {
			return claimOut{}, err
		}
		if now.Assignee != nil {
			return claimOut{}, errs.E(errs.AlreadyClaimed, "task %s is already claimed by %s", t.ID, *now.Assignee)
		}
		state := now.Status
		if now.Deferred {
			state += " (deferred)"
		}
		return claimOut{}, errs.E(errs.InvalidRequest, "task %s is %s and cannot be claimed", t.ID, state)
	}
	if _, err := m.mandates.Consume(ctx, tx, chain, reserve, true); err != nil {
		return claimOut{}, err
	}
	if err := heartbeat(ctx, tx, t.ID, who.ID); err != nil {
		return claimOut{}, err
	}
	out := claimOut{OK: true, TaskID: t.ID, Status: working}
	if out.Budget, err = m.budget(ctx, c, chain); err != nil {
		return claimOut{}, err
	}
	added := map[string]any{}
	m.claims.Run(ctx, tx, kernel.Claimed{AgentID: who.ID, TaskID: t.ID, ProjectID: p.ID, MandateID: chain.Leaf().ID.String()}, added)
	out.Credential, _ = added["credential"].(map[string]any)
	out.CredentialNote, _ = added["credential_note"].(string)
	return out, nil
}

// budget is what is left of each limit in the chain; nil when it has none.
func (m *Module) budget(ctx context.Context, c *kernel.Call, chain mandate.Chain) (map[string]float64, error) {
	left, err := m.mandates.Remaining(ctx, c.Tx, chain)
	if err != nil || len(left) == 0 {
		return nil, err
	}
	return left, nil
}
