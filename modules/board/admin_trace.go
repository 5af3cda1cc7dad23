package board

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
)

// TraceMandate is a mandate link in one of a task's chains.
type TraceMandate struct {
	ID              string          `json:"id" bun:"id"`
	ParentID        *string         `json:"parent_id" bun:"parent_id"`
	IssuerKind      string          `json:"issuer_kind" bun:"issuer_kind" enum:"human,agent"`
	Issuer          string          `json:"issuer" bun:"issuer"`
	Holder          string          `json:"holder" bun:"holder"`
	Scope           []string        `json:"scope" nullable:"false" bun:"scope,array"`
	Limits          json.RawMessage `json:"limits" bun:"limits,type:jsonb"`
	DelegationsLeft int             `json:"delegations_left" bun:"delegations_left"`
	Depth           int             `json:"depth" bun:"depth"`
	ExpiresAt       time.Time       `json:"expires_at" bun:"expires_at"`
	RevokedAt       *time.Time      `json:"revoked_at" bun:"revoked_at"`
	CreatedAt       time.Time       `json:"created_at" bun:"created_at"`
}

// TraceMessage is a message on a task's thread.
type TraceMessage struct {
	ID        int64      `json:"id" bun:"id"`
	FromAgent *string    `json:"from_agent" bun:"from_agent"`
	FromHuman *string    `json:"from_human" bun:"from_human"`
	ToAgent   *string    `json:"to_agent" bun:"to_agent" doc:"null: to the organization's people"`
	Body      string     `json:"body" bun:"body"`
	CreatedAt time.Time  `json:"created_at" bun:"created_at"`
	ReadAt    *time.Time `json:"read_at" bun:"read_at"`
}

// TaskTrace is everything the board knows of a task.
type TaskTrace struct {
	Task     AdminTask       `json:"task"`
	Entries  []ledger.Record `json:"entries" nullable:"false" doc:"Its log entries, oldest first (at most 1000)"`
	Mandates []TraceMandate  `json:"mandates" nullable:"false" doc:"The organization's mandates in its chains, by depth"`
	Messages []TraceMessage  `json:"messages" nullable:"false" doc:"Its thread, oldest first"`
}

type traceOut struct{ Body TaskTrace }

func (m *Module) traceTask(ctx context.Context, in *taskIDIn) (*traceOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	got, err := m.svc.Trace(ctx, p.OrgID, in.TaskID)
	if err != nil {
		return nil, err
	}
	return &traceOut{Body: TaskTrace{Task: adminTask(&got.Task), Entries: got.Entries, Mandates: got.Mandates,
		Messages: got.Messages}}, nil
}
