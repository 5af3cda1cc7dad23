package people

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// The listings join what several owners keep: the rows of people, projects
// and agents come from core/identity, a project's open tasks from the board
// (seams.BoardFactsSeam), an agent's live mandates from core/mandate and its
// live keys from the credentials module (seams.AgentKeysSeam), so this module
// reads none of their tables (docs/architecture.md, "Table ownership").

// Agent is an agent of the caller's organization.
type Agent struct {
	ID             string         `json:"id" bun:"id" example:"code-web"`
	Owner          string         `json:"owner" bun:"owner"`
	Client         string         `json:"client" bun:"client" enum:"chat,cowork,design,code,gemini,runner,a2a,a2a-remote"`
	Status         string         `json:"status" bun:"status" enum:"active,paused,banned"`
	LastSeen       *time.Time     `json:"last_seen" bun:"last_seen"`
	CreatedAt      time.Time      `json:"created_at" bun:"created_at"`
	RootMandateID  *uuid.UUID     `json:"root_mandate_id" bun:"root_mandate_id"`
	Preferences    map[string]any `json:"preferences" bun:"preferences,type:jsonb"`
	RoleID         *string        `json:"role_id" bun:"role_id" doc:"The role it was hired from"`
	ReplacedBy     *string        `json:"replaced_by" bun:"replaced_by" doc:"The agent that took over from this banned one"`
	Projects       []string       `json:"projects" bun:"projects,array" nullable:"false"`
	LiveTokens     int            `json:"live_tokens" bun:"live_tokens"`
	LiveMandates   int            `json:"live_mandates" bun:"live_mandates" doc:"Unrevoked, unexpired mandates it holds"`
	Keys           int            `json:"keys" bun:"keys" doc:"Unrevoked Ed25519 public keys it registered (docs/specs/behavior.md §10.6 names it keys)"`
	ListeningUntil *time.Time     `json:"listening_until" bun:"listening_until"`
	Online         bool           `json:"online" bun:"online" doc:"Listening now or within the last 30 seconds"`
}

// Agents lists the agents of person p's organization, by id.
func (s *Service) Agents(ctx context.Context, p *identity.Person) ([]Agent, error) {
	return s.agentRows(ctx, s.db, p.OrgID, "")
}

// Agent is agent id of person p's organization as the list shows it.
// Refusal: not_found.
func (s *Service) Agent(ctx context.Context, p *identity.Person, id string) (*Agent, error) {
	as, err := s.agentRows(ctx, s.db, p.OrgID, id)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return nil, errs.E(errs.NotFound, "agent %s does not exist", id)
	}
	return &as[0], nil
}

// agentRows lists the agents of org by id; only agent id when it is given.
func (s *Service) agentRows(ctx context.Context, tx bun.IDB, org, id string) ([]Agent, error) {
	as, err := s.ident.ListAgents(ctx, tx, org, id)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(as))
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	mandates, err := s.mandates.LiveHeldCounts(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	keys, err := s.keys().LiveKeyCounts(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(as))
	for _, a := range as {
		var prefs map[string]any
		if len(a.Preferences) > 0 {
			if err := json.Unmarshal(a.Preferences, &prefs); err != nil {
				return nil, err
			}
		}
		out = append(out, Agent{ID: a.ID, Owner: a.Owner, Client: a.Client, Status: a.Status, LastSeen: a.LastSeen,
			CreatedAt: a.CreatedAt, RootMandateID: a.RootMandateID, Preferences: prefs, RoleID: a.RoleID,
			ReplacedBy: a.ReplacedBy, Projects: a.Projects, LiveTokens: a.LiveTokens, LiveMandates: mandates[a.ID],
			Keys: keys[a.ID], ListeningUntil: a.ListeningUntil, Online: a.Online})
	}
	return out, nil
}
