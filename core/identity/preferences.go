package identity

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// MaxPreferences caps an agent's preferences, as JSON text, in characters:
// they ride along in every session.
const MaxPreferences = 4000

// SetPreferences replaces an agent's preferences with raw, which must be a
// JSON object of at most MaxPreferences characters. Refusals: forbidden,
// invalid_request, not_found.
func (s *Service) SetPreferences(ctx context.Context, by, id string, raw []byte) (json.RawMessage, error) {
	var out json.RawMessage
	err := s.Act(ctx, by, Approver, "admin.agent.preferences", map[string]any{"agent_id": id, "preferences": json.RawMessage(nil)},
		func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			prefs, err := parsePreferences(raw)
			if err != nil {
				return err
			}
			if _, err := s.GetAgent(ctx, tx, id, p.OrgID); err != nil {
				return err
			}
			e.AgentID = id
			e.Payload = map[string]any{"agent_id": id, "preferences": json.RawMessage(prefs)}
			_, err = tx.ExecContext(ctx, `UPDATE agents SET preferences = ?::jsonb WHERE id = ?`, string(prefs), id)
			out = prefs
			return err
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
