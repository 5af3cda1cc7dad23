package credentials

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// BadPublicKey is the refusal of a public key that does not decode.
const BadPublicKey = "an Ed25519 public key is base64url of its 32 raw bytes"

// ParsePublicKey decodes an Ed25519 public key written as base64url of its
// 32 raw bytes (padding tolerated); invalid_request otherwise.
func ParsePublicKey(text string) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(strings.TrimSpace(text), "="))
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, errs.E(errs.InvalidRequest, BadPublicKey)
	}
	return raw, nil
}

// KeyID is the kid of a raw public key: the first 16 characters of
// base64url(sha256(raw)).
func KeyID(raw []byte) string {
	sum := sha256.Sum256(raw)
	return base64.RawURLEncoding.EncodeToString(sum[:])[:16]
}

// AgentKey is a public key an agent registered.
type AgentKey struct {
	KID          string     `bun:"kid" json:"kid"`
	PublicKey    []byte     `bun:"public_key" json:"-"`
	PublicKeyB64 string     `bun:"-" json:"public_key_b64" doc:"The raw 32 bytes in standard base64"`
	CreatedAt    time.Time  `bun:"created_at" json:"created_at"`
	CreatedBy    *string    `bun:"created_by" json:"created_by"`
	RevokedAt    *time.Time `bun:"revoked_at" json:"revoked_at"`
}

// AddedKey is what registering a key hands back.
type AddedKey struct {
	AgentID string `json:"agent_id"`
	KID     string `json:"kid"`
}

// ListAgentKeys lists the keys of agent, newest first, when it belongs to
// org; otherwise not_found.
func (s *Service) ListAgentKeys(ctx context.Context, org, agent string) ([]AgentKey, error) {
	if _, err := s.ident.GetAgent(ctx, s.db, agent, org); err != nil {
		return nil, err
	}
	out, err := agentKeysOf(ctx, s.db, agent)
	for i := range out {
		out[i].PublicKeyB64 = base64.StdEncoding.EncodeToString(out[i].PublicKey)
	}
	return out, err
}

// AddAgentKey registers publicKey (base64url of 32 raw bytes) for agent.
// Refusals, in this order: forbidden; invalid_request (the key does not
// decode); not_found (no such agent in the organization); invalid_request
// (a client that holds no keys, or a key already registered in the
// organization, naming its agent).
func (s *Service) AddAgentKey(ctx context.Context, by, agent, publicKey string) (*AddedKey, error) {
	var out *AddedKey
	err := s.ident.Act(ctx, by, identity.Approver, "admin.agent_key.add", map[string]any{"agent_id": agent, "public_key": publicKey},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			raw, err := ParsePublicKey(publicKey)
			if err != nil {
				return err
			}
			a, err := s.ident.GetAgent(ctx, tx, agent, p.OrgID)
			if err != nil {
				return err
			}
			if !keyClients[a.Client] {
				return errs.E(errs.InvalidRequest, "%s agents do not hold keys; only code, runner do", a.Client)
			}
			// Keys are unique per organization: another organization's
			// keys never show here (docs/security.md, finding 9).
			taken, err := keyHolders(ctx, tx, p.OrgID, raw)
			if err != nil {
				return err
			}
			if len(taken) > 0 {
				return errs.E(errs.InvalidRequest, "this public key is already registered for %s", taken[0])
			}
			e.AgentID = agent
			kid := KeyID(raw)
			if err := insertAgentKey(ctx, tx, agent, p.OrgID, kid, raw, p.ID); err != nil {
				return db.Refusal(err, "this public key")
			}
			out = &AddedKey{AgentID: agent, KID: kid}
			return nil
		})
	return out, wrap(err, "add a key for agent %s", agent)
}

// RevokeAgentKey revokes agent's live key kid and returns how many keys it
// revoked (0 for a kid it has not, or one already revoked). Refusals:
// forbidden, not_found (no such agent in the organization).
func (s *Service) RevokeAgentKey(ctx context.Context, by, agent, kid string) (int64, error) {
	var n int64
	err := s.ident.Act(ctx, by, identity.Approver, "admin.agent_key.revoke", map[string]any{"agent_id": agent, "kid": kid},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if _, err := s.ident.GetAgent(ctx, tx, agent, p.OrgID); err != nil {
				return err
			}
			e.AgentID = agent
			var err error
			if n, err = revokeAgentKey(ctx, tx, agent, kid); err != nil {
				return fmt.Errorf("credentials.RevokeAgentKey: %w", err)
			}
			return nil
		})
	return n, wrap(err, "revoke key %s of agent %s", kid, agent)
}
