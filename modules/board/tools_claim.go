package board

import (
	"context"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
)

func (m *Module) addClaim(h *kernel.Host) error {
	return kernel.AddTool(h, kernel.ToolSpec{
		Name: "pact_claim", Effect: kernel.Updates, RoundTrips: 3, MandateArg: "mandate_id", ReadAhead: readTaskAhead, Title: "Claim a task",
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
// subscribers of seams.ClaimedHook add (the credentials module today).
type claimOut struct {
	OK             bool               `json:"ok" jsonschema:"Always true: the task is yours."`
	TaskID         string             `json:"task_id" jsonschema:"The task you claimed."`
	Status         string             `json:"status" jsonschema:"working."`
	Budget         map[string]float64 `json:"budget,omitempty" jsonschema:"What is left of each limit of your mandate's chain, when it has any."`
	Credential     map[string]any     `json:"credential,omitempty" jsonschema:"A credential for this claim's mandate chain, held by your registered key: format, external_id and the credential itself."`
	CredentialNote string             `json:"credential_note,omitempty" jsonschema:"Why no credential was issued with this claim."`
}

func (m *Module) claim(ctx context.Context, c *kernel.Call, a claimIn) (claimOut, error) {
	reserve, err := mandate.CheckAmounts(a.Reserve, "reserve")
	if err != nil {
		return claimOut{}, err
	}
	by, err := m.agent(ctx, c, a.MandateID)
	if err != nil {
		return claimOut{}, err
	}
	got, err := m.svc.Claim(ctx, c.Tx, by, ClaimInput{TaskID: a.TaskID, Exclusive: a.Exclusive, Reserve: reserve})
	if err != nil {
		return claimOut{}, err
	}
	return claimOut{OK: true, TaskID: got.TaskID, Status: working, Budget: got.Budget, Credential: got.Credential,
		CredentialNote: got.CredentialNote}, nil
}
