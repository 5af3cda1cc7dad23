package identity

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// ListedAgent is an agent as its organization's listing shows it: with its
// live tokens and whether it is listening.
type ListedAgent struct {
	Agent
	LiveTokens     int        `bun:"live_tokens"`
	ListeningUntil *time.Time `bun:"listening_until"`
	// Online: listening now or within the last 30 seconds.
	Online bool `bun:"online"`
}

// ListAgents lists the agents of org by id; only agent id when it is given
// (empty when org has no such agent).
func (s *Service) ListAgents(ctx context.Context, tx bun.IDB, org, id string) ([]ListedAgent, error) {
	out := []ListedAgent{}
	err := tx.NewRaw(`SELECT `+agentCols+`, pr.listening_until,
		(SELECT count(*) FROM agent_tokens t WHERE t.agent_id = a.id AND t.revoked_at IS NULL AND t.expires_at > now()) AS live_tokens,
		coalesce(pr.listening_until > now() - interval '30 seconds', false) AS online
		FROM agents a LEFT JOIN agent_presence pr ON pr.agent_id = a.id WHERE a.org_id = ? AND (? = '' OR a.id = ?) ORDER BY a.id`, org, id, id).Scan(ctx, &out)
	return out, err
}
