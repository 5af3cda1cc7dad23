package credentials

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The agents' Ed25519 public keys (agent_keys), the keys credentials are
// held by.

// holder is an agent as a credential's holder: its client and its newest
// live key (nil when it has none).
type holder struct {
	Client string `bun:"client"`
	Key    []byte `bun:"public_key"`
}

// holderOf reads agent's client and newest live key.
func holderOf(ctx context.Context, q bun.IDB, agent string) (holder, error) {
	var h holder
	err := q.NewRaw(`SELECT a.client, (SELECT k.public_key FROM agent_keys k WHERE k.agent_id = a.id AND k.revoked_at IS NULL
		ORDER BY k.created_at DESC LIMIT 1) AS public_key FROM agents a WHERE a.id = ?`, agent).Scan(ctx, &h)
	return h, err
}

// liveKeysOf lists agent's live keys, raw.
func liveKeysOf(ctx context.Context, q bun.IDB, agent string) ([][]byte, error) {
	var keys [][]byte
	err := q.NewRaw(`SELECT public_key FROM agent_keys WHERE agent_id = ? AND revoked_at IS NULL`, agent).Scan(ctx, &keys)
	return keys, err
}

// liveKeyCounts returns how many live keys each of agents has; an agent
// with none is missing.
func liveKeyCounts(ctx context.Context, q bun.IDB, agents []string) (map[string]int, error) {
	var rows []struct {
		AgentID string `bun:"agent_id"`
		N       int    `bun:"n"`
	}
	err := q.NewRaw(`SELECT agent_id, count(*) AS n FROM agent_keys WHERE agent_id = ANY(?::text[])
		AND revoked_at IS NULL GROUP BY agent_id`, pgdialect.Array(agents)).Scan(ctx, &rows)
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.AgentID] = r.N
	}
	return out, err
}

// agentKeysOf lists agent's keys, revoked ones too, newest first.
func agentKeysOf(ctx context.Context, q bun.IDB, agent string) ([]AgentKey, error) {
	out := []AgentKey{}
	err := q.NewRaw(`SELECT kid, public_key, created_at, created_by, revoked_at FROM agent_keys
		WHERE agent_id = ? ORDER BY created_at DESC, kid`, agent).Scan(ctx, &out)
	return out, err
}

// keyHolders lists the agents of org that registered the raw key, revoked
// or not (keys are unique per organization).
func keyHolders(ctx context.Context, q bun.IDB, org string, raw []byte) ([]string, error) {
	var taken []string
	err := q.NewRaw(`SELECT agent_id FROM agent_keys WHERE org_id = ? AND public_key = ?`, org, raw).Scan(ctx, &taken)
	return taken, err
}

// insertAgentKey registers raw, whose kid is kid, for agent of org, as
// person by.
func insertAgentKey(ctx context.Context, q bun.IDB, agent, org, kid string, raw []byte, by string) error {
	_, err := q.NewRaw(`INSERT INTO agent_keys (agent_id, org_id, kid, public_key, created_by) VALUES (?, ?, ?, ?, ?)`,
		agent, org, kid, raw, by).Exec(ctx)
	return err
}

// revokeAgentKey revokes agent's live key kid and returns how many it
// revoked.
func revokeAgentKey(ctx context.Context, q bun.IDB, agent, kid string) (int64, error) {
	res, err := q.NewRaw(`UPDATE agent_keys SET revoked_at = now() WHERE agent_id = ? AND kid = ? AND revoked_at IS NULL`,
		agent, kid).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
