package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// TokenPrefix starts every agent token.
const TokenPrefix = "pact_"

// HashToken returns what the board stores of a token: its SHA-256, in hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// LiveTokenCount is how many unrevoked, unexpired tokens agent has.
func (s *Service) LiveTokenCount(ctx context.Context, tx bun.IDB, agent string) (int, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM agent_tokens WHERE agent_id = ? AND revoked_at IS NULL AND expires_at > ?`,
		agent, s.now()).Scan(ctx, &n)
	return n, err
}

// AuthenticateAgent reports whether token is a live token of agent: issued
// to that agent, not revoked, not expired. The token itself is never stored;
// only its hash is looked up.
func (s *Service) AuthenticateAgent(ctx context.Context, tx bun.IDB, agent, token string) (bool, error) {
	if !strings.HasPrefix(token, TokenPrefix) {
		return false, nil
	}
	var owners []string
	err := s.db.Fetch(ctx, tx, &owners,
		`SELECT agent_id FROM agent_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2`,
		HashToken(token), s.now())
	if err != nil {
		return false, fmt.Errorf("identity.AuthenticateAgent: %w", err)
	}
	return len(owners) == 1 && subtle.ConstantTimeCompare([]byte(owners[0]), []byte(agent)) == 1, nil
}

// AgentForToken returns the agent a live token belongs to (not revoked,
// not expired), for an endpoint whose URL does not name the agent (the pact
// stream). ok is false for an unknown, revoked or expired token.
func (s *Service) AgentForToken(ctx context.Context, tx bun.IDB, token string) (agent string, ok bool, err error) {
	if !strings.HasPrefix(token, TokenPrefix) {
		return "", false, nil
	}
	var owners []string
	err = s.db.Fetch(ctx, tx, &owners,
		`SELECT agent_id FROM agent_tokens WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2`,
		HashToken(token), s.now())
	if err != nil {
		return "", false, fmt.Errorf("identity.AgentForToken: %w", err)
	}
	if len(owners) != 1 {
		return "", false, nil
	}
	return owners[0], true, nil
}
