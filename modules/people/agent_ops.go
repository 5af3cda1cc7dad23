package people

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Agent statuses.
var statuses = map[string]bool{"active": true, "paused": true, "banned": true}

// SetAgentStatus pauses, bans or reactivates an agent. Banning, and undoing
// a ban, need an owner; pausing and resuming an approver (docs/security.md,
// finding 3). Banning revokes every mandate the agent holds, with everything
// delegated under them and the tasks hanging on them, and publishes the
// credentials exported for them as revoked (the revoke hooks), so nothing
// the agent was given outlives the ban; undoing a ban gives none of it back.
// A replaced agent stays banned: its successor carries on. Refusals:
// forbidden, invalid_request, not_found.
func (s *Service) SetAgentStatus(ctx context.Context, by, id, status string) (*identity.Agent, error) {
	min := identity.Approver
	if status == "banned" {
		min = identity.Owner
	}
	var out *identity.Agent
	err := s.ident.Act(ctx, by, min, "admin.agent.status", map[string]any{"agent_id": id, "status": status},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if !statuses[status] {
				return errs.E(errs.InvalidRequest, "status must be active, paused or banned, not %q", status)
			}
			a, err := s.ident.GetAgent(ctx, tx, id, p.OrgID)
			if err != nil {
				return err
			}
			e.AgentID = id
			if a.Status == "banned" && status != "banned" {
				switch {
				case a.ReplacedBy != nil:
					return errs.E(errs.InvalidRequest, "agent %s was replaced by %s and stays banned; use %s", id, *a.ReplacedBy, *a.ReplacedBy)
				case p.Role != identity.Owner:
					return errs.E(errs.Forbidden, "only an owner may undo a ban; %s is %s", p.ID, p.Role)
				}
			}
			if err := setAgentStatus(ctx, tx, id, status); err != nil {
				return err
			}
			if status == "banned" && a.Status != "banned" {
				if err := s.revokeHeld(ctx, tx, e, id); err != nil {
					return err
				}
			}
			out, err = s.ident.GetAgent(ctx, tx, id, p.OrgID)
			return err
		})
	return out, err
}

// revokeHeld revokes every mandate agent holds (mandate.RevokeHeldBy) and
// records on e what it revoked and what it stopped.
func (s *Service) revokeHeld(ctx context.Context, tx bun.IDB, e *ledger.Entry, agent string) error {
	revs, err := s.mandates.RevokeHeldBy(ctx, tx, agent)
	if err != nil {
		return err
	}
	revoked, stopped := []string{}, []string{}
	for _, r := range revs {
		for _, id := range r.Subtree {
			revoked = append(revoked, id.String())
		}
		stopped = append(stopped, r.TasksStopped...)
	}
	payload, _ := e.Payload.(map[string]any)
	if payload != nil {
		payload["mandates_revoked"], payload["tasks_stopped"] = revoked, stopped
	}
	return nil
}

// MaxPreferences caps an agent's preferences, as JSON text, in characters:
// they ride along in every session.
const MaxPreferences = 4000

// SetPreferences replaces an agent's preferences with raw, which must be a
// JSON object of at most MaxPreferences characters. Refusals: forbidden,
// invalid_request, not_found.
func (s *Service) SetPreferences(ctx context.Context, by, id string, raw []byte) (json.RawMessage, error) {
	var out json.RawMessage
	err := s.ident.Act(ctx, by, identity.Approver, "admin.agent.preferences", map[string]any{"agent_id": id, "preferences": json.RawMessage(nil)},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			prefs, err := parsePreferences(raw)
			if err != nil {
				return err
			}
			if _, err := s.ident.GetAgent(ctx, tx, id, p.OrgID); err != nil {
				return err
			}
			e.AgentID = id
			e.Payload = map[string]any{"agent_id": id, "preferences": json.RawMessage(prefs)}
			out = prefs
			return setAgentPreferences(ctx, tx, id, prefs)
		})
	return out, err
}

func parsePreferences(raw []byte) ([]byte, error) {
	tree, err := canon.Decode(raw)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "preferences must be a JSON object: %v", err)
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, errs.E(errs.InvalidRequest, "preferences must be a JSON object")
	}
	text, err := canon.Marshal(tree)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "preferences: %v", err)
	}
	if n := len([]rune(string(text))); n > MaxPreferences {
		return nil, errs.E(errs.InvalidRequest, "preferences are %d characters as compact JSON; the limit is %d", n, MaxPreferences)
	}
	return text, nil
}

// IssuedToken is a new token, shown once.
type IssuedToken struct {
	AgentID   string    `json:"agent_id"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// IssueToken gives an agent a further token for days days (default 30).
// Refusals: forbidden, invalid_request, not_found, agent_paused (banned).
func (s *Service) IssueToken(ctx context.Context, by, agent string, days float64) (*IssuedToken, error) {
	var out *IssuedToken
	err := s.ident.Act(ctx, by, identity.Approver, "admin.token.issue", map[string]any{"agent_id": agent, "days": days},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			ends, err := s.ident.Term("--days", days)
			if err != nil {
				return err
			}
			a, err := s.ident.GetAgent(ctx, tx, agent, p.OrgID)
			if err != nil {
				return err
			}
			if a.Status == "banned" {
				return errs.E(errs.AgentPaused, "agent %s is banned; it gets no tokens", agent)
			}
			e.AgentID = agent
			token, err := s.newToken(ctx, tx, agent, ends)
			out = &IssuedToken{AgentID: agent, Token: token, ExpiresAt: ends}
			return err
		})
	return out, err
}

// RevokeTokens revokes every live token of an agent and returns how many.
// Refusals: forbidden, not_found.
func (s *Service) RevokeTokens(ctx context.Context, by, agent string) (int64, error) {
	var n int64
	err := s.ident.Act(ctx, by, identity.Approver, "admin.token.revoke", map[string]any{"agent_id": agent},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if _, err := s.ident.GetAgent(ctx, tx, agent, p.OrgID); err != nil {
				return err
			}
			e.AgentID = agent
			var err error
			n, err = revokeAgentTokens(ctx, tx, agent)
			e.Payload = map[string]any{"agent_id": agent, "revoked": n}
			return err
		})
	return n, err
}
