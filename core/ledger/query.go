package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Record is a stored entry as people read it, with its payload (nil once
// erased).
type Record struct {
	ID            int64           `json:"id" bun:"id"`
	ChainKey      string          `json:"chain_key" bun:"chain_key"`
	ProjectID     *string         `json:"project_id" bun:"project_id"`
	TaskID        *string         `json:"task_id" bun:"task_id"`
	AgentID       *string         `json:"agent_id" bun:"agent_id"`
	Actor         string          `json:"actor" bun:"actor" example:"human:ana"`
	MandateChain  []string        `json:"mandate_chain" nullable:"false" bun:"mandate_chain,array"`
	Action        string          `json:"action" bun:"action" example:"pact_post"`
	Outcome       string          `json:"outcome" bun:"outcome" doc:"ok, or the error code of a refusal"`
	At            time.Time       `json:"at" bun:"at"`
	Payload       json.RawMessage `json:"payload" bun:"payload,type:jsonb" doc:"The redacted payload; null once erased"`
	PayloadErased bool            `json:"payload_erased" bun:"payload_erased"`
	Hash          string          `json:"hash" bun:"hash" doc:"The entry's hash in its chain; empty between its commit and its place in the chain, which the integrator gives it within moments"`
}

// Filter selects entries of one organization. Zero fields do not filter.
type Filter struct {
	OrgID     string
	ProjectID string
	AgentID   string
	Action    string
	Outcome   string
	TaskID    string // a UUID
	Refused   bool   // outcome is not ok
	Before    int64  // id below
	From, To  *time.Time
	Limit     int
	// PayloadContains selects entries whose payload contains this JSON
	// object (jsonb @>), such as {"pact_id": "…"}; an erased payload
	// matches nothing.
	PayloadContains json.RawMessage
	// Oldest lists oldest first; otherwise newest first.
	Oldest bool
}

// Entries returns the entries f selects, with their payloads.
func (l *Log) Entries(ctx context.Context, d bun.IDB, f Filter) ([]Record, error) {
	q := `SELECT e.id, e.chain_key, e.project_id, e.task_id::text AS task_id, e.agent_id, e.actor,
			e.mandate_chain::text[] AS mandate_chain, e.action, e.outcome, e.at, p.content AS payload,
			p.erased_at IS NOT NULL AS payload_erased, coalesce(pl.hash, '') AS hash
		FROM entries e JOIN payloads p ON p.id = e.payload_ref LEFT JOIN entry_places pl ON pl.entry_id = e.id
		WHERE e.org_id = ?`
	args := []any{f.OrgID}
	add := func(cond string, v any) {
		q += ` AND ` + cond
		args = append(args, v)
	}
	if f.ProjectID != "" {
		add(`e.project_id = ?`, f.ProjectID)
	}
	if f.AgentID != "" {
		add(`e.agent_id = ?`, f.AgentID)
	}
	if f.Action != "" {
		add(`e.action = ?`, f.Action)
	}
	if f.Outcome != "" {
		add(`e.outcome = ?`, f.Outcome)
	}
	if f.TaskID != "" {
		add(`e.task_id = ?::uuid`, f.TaskID)
	}
	if f.Refused {
		// Spelled with its constant, as migration 041's partial index of
		// the refused entries is: a parameter would keep the planner from
		// using it.
		q += ` AND e.outcome <> '` + OK + `'`
	}
	if len(f.PayloadContains) > 0 {
		add(`p.content @> ?::jsonb`, string(f.PayloadContains))
	}
	if f.Before > 0 {
		add(`e.id < ?`, f.Before)
	}
	if f.From != nil {
		add(`e.at >= ?`, *f.From)
	}
	if f.To != nil {
		add(`e.at <= ?`, *f.To)
	}
	if f.Oldest {
		q += ` ORDER BY e.id`
	} else {
		q += ` ORDER BY e.id DESC`
	}
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	out := []Record{}
	if err := d.NewRaw(q, args...).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("ledger: list entries: %w", err)
	}
	for i := range out {
		if out[i].MandateChain == nil {
			out[i].MandateChain = []string{}
		}
	}
	return out, nil
}
