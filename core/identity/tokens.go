package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// TokenPrefix starts every agent token.
const TokenPrefix = "pact_"

// HashToken returns what the board stores of a token: its SHA-256, in hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newToken is "pact_" + base64url (no padding) of 32 random bytes.
func (s *Service) newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(s.rand, b); err != nil {
		return "", err
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

func (s *Service) insertToken(ctx context.Context, tx bun.IDB, agent string, expires time.Time) (string, error) {
	token, err := s.newToken()
	if err != nil {
		return "", err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO agent_tokens (token_hash, agent_id, expires_at) VALUES (?, ?, ?)`,
		HashToken(token), agent, expires)
	return token, err
}

// NewToken stores a new token of agent lasting until expires, in tx, and
// returns it: the caller hands it over once (a redeemed setup code).
func (s *Service) NewToken(ctx context.Context, tx bun.IDB, agent string, expires time.Time) (string, error) {
	return s.insertToken(ctx, tx, agent, expires)
}

// LiveTokenCount is how many unrevoked, unexpired tokens agent has.
func (s *Service) LiveTokenCount(ctx context.Context, tx bun.IDB, agent string) (int, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM agent_tokens WHERE agent_id = ? AND revoked_at IS NULL AND expires_at > ?`,
		agent, s.now()).Scan(ctx, &n)
	return n, err
}

// IssuedToken is a new token, shown once.
type IssuedToken struct {
	AgentID   string    `json:"agent_id"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// IssueToken gives an agent a further token for days days (default 30).
// Refusals: forbidden, invalid_request, not_found.
func (s *Service) IssueToken(ctx context.Context, by, agent string, days float64) (*IssuedToken, error) {
	var out *IssuedToken
	err := s.Act(ctx, by, Approver, "admin.token.issue", map[string]any{"agent_id": agent, "days": days},
		func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			ends, err := s.Term("--days", days)
			if err != nil {
				return err
			}
			a, err := s.GetAgent(ctx, tx, agent, p.OrgID)
			if err != nil {
				return err
			}
			if a.Status == "banned" {
				return errs.E(errs.AgentPaused, "agent %s is banned; it gets no tokens", agent)
			}
			e.AgentID = agent
			token, err := s.insertToken(ctx, tx, agent, ends)
			out = &IssuedToken{AgentID: agent, Token: token, ExpiresAt: ends}
			return err
		})
	return out, err
}

// RevokeTokens revokes every live token of an agent and returns how many.
// Refusals: forbidden, not_found.
func (s *Service) RevokeTokens(ctx context.Context, by, agent string) (int64, error) {
	var n int64
	err := s.Act(ctx, by, Approver, "admin.token.revoke", map[string]any{"agent_id": agent},
		func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			if _, err := s.GetAgent(ctx, tx, agent, p.OrgID); err != nil {
				return err
			}
			e.AgentID = agent
			res, err := tx.ExecContext(ctx, `UPDATE agent_tokens SET revoked_at = now() WHERE agent_id = ? AND revoked_at IS NULL`, agent)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			e.Payload = map[string]any{"agent_id": agent, "revoked": n}
			return err
		})
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
	err := tx.NewRaw(`SELECT agent_id FROM agent_tokens WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?`,
		HashToken(token), s.now()).Scan(ctx, &owners)
	if err != nil {
		return false, err
	}
	return len(owners) == 1 && subtle.ConstantTimeCompare([]byte(owners[0]), []byte(agent)) == 1, nil
}
