package people

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The store of setup_codes, in bun's dialect. A code is kept only as its
// hash (identity.HashToken); the service hashes it.

// insertSetupCode records the code of hash for agent, created by person by
// at created, redeemable until expires.
func insertSetupCode(ctx context.Context, tx bun.IDB, hash, agent, by string, created, expires time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO setup_codes (code_hash, agent_id, created_by, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?)`, hash, agent, by, created, expires)
	if err != nil {
		return fmt.Errorf("people.connect: %w", err)
	}
	return nil
}

// knownCode is a setup code the board holds, as a refused redemption
// reports it.
type knownCode struct {
	AgentID  string     `bun:"agent_id"`
	UsedAt   *time.Time `bun:"used_at"`
	Expires  time.Time  `bun:"expires_at"`
	Creator  string     `bun:"created_by"`
	Received time.Time  `bun:"created_at"`
}

// codeByHash is the setup code of hash, or nil when the board holds none.
func codeByHash(ctx context.Context, d bun.IDB, hash string) (*knownCode, error) {
	var rows []knownCode
	err := d.NewRaw(`SELECT agent_id, used_at, expires_at, created_by, created_at FROM setup_codes
		WHERE code_hash = ?`, hash).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("look up a refused setup code: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// usedCode is a setup code useCode marked used.
type usedCode struct {
	AgentID   string `bun:"agent_id"`
	CreatedBy string `bun:"created_by"`
}

// useCode marks the code of hash used at now, if it is unused and
// unexpired at now, in one statement (so two redemptions cannot both
// succeed); nil when it was not.
func useCode(ctx context.Context, tx bun.IDB, hash string, now time.Time) (*usedCode, error) {
	var rows []usedCode
	err := tx.NewRaw(`UPDATE setup_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?
		RETURNING agent_id, created_by`, now.UTC(), hash, now).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("people.redeem: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// latestCode is agent's newest setup code, or nil when it has none.
func latestCode(ctx context.Context, tx bun.IDB, agent string) (*SetupCodeState, error) {
	var codes []SetupCodeState
	if err := tx.NewRaw(`SELECT created_at, expires_at, used_at FROM setup_codes WHERE agent_id = ?
		ORDER BY created_at DESC LIMIT 1`, agent).Scan(ctx, &codes); err != nil {
		return nil, err
	}
	if len(codes) == 0 {
		return nil, nil
	}
	return &codes[0], nil
}
