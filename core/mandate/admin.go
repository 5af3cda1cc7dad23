package mandate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// What mandate administration (modules/mandates) reads of the mandates
// table, asked of its owner rather than written out again in SQL
// (docs/architecture.md, "Table ownership").

// SubtreeLink is a live link at or under a mandate, Below links down.
type SubtreeLink struct {
	ID     string `bun:"id"`
	Holder string `bun:"holder"`
	Below  int    `bun:"below"`
}

// LiveSubtree returns the unrevoked links of id's subtree, id itself first
// (Below 0) when it is live, by depth below id then id.
func (s *Service) LiveSubtree(ctx context.Context, tx bun.IDB, id string) ([]SubtreeLink, error) {
	var out []SubtreeLink
	err := tx.NewRaw(`WITH RECURSIVE sub AS (
			SELECT id, holder, 0 AS below FROM mandates WHERE id = ? AND revoked_at IS NULL
			UNION ALL
			SELECT c.id, c.holder, s.below + 1 FROM mandates c JOIN sub s ON c.parent_id = s.id
			WHERE c.revoked_at IS NULL AND s.below <= ?)
		SELECT id::text AS id, holder, below FROM sub ORDER BY below, id`, id, MaxDepth).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("live subtree of mandate %s: %w", id, err)
	}
	return out, nil
}

// Listed is a mandate as a listing shows it, with what its limits used.
type Listed struct {
	ID              string          `bun:"id"`
	ParentID        *string         `bun:"parent_id"`
	IssuerKind      string          `bun:"issuer_kind"`
	Issuer          string          `bun:"issuer"`
	Holder          string          `bun:"holder"`
	Scope           []string        `bun:"scope,array"`
	Limits          json.RawMessage `bun:"limits,type:jsonb"`
	DelegationsLeft int             `bun:"delegations_left"`
	Depth           int             `bun:"depth"`
	ExpiresAt       time.Time       `bun:"expires_at"`
	RevokedAt       *time.Time      `bun:"revoked_at"`
	CreatedAt       time.Time       `bun:"created_at"`
	Format          string          `bun:"format"`
	ExportedAs      *string         `bun:"exported_as"`
	ExternalID      *string         `bun:"external_id"`
	IssuerPrincipal *string         `bun:"issuer_principal"`
	// Usage is {limit key: amount used} as JSON.
	Usage json.RawMessage `bun:"usage,type:jsonb"`
}

// ListHeldIn returns the mandates held by org's agents — only the live ones
// (unrevoked, unexpired) unless all — by depth, then age, then id.
func (s *Service) ListHeldIn(ctx context.Context, tx bun.IDB, org string, all bool) ([]Listed, error) {
	var out []Listed
	err := tx.NewRaw(`SELECT m.id::text AS id, m.parent_id::text AS parent_id, m.issuer_kind, m.issuer, m.holder, m.scope,
			m.limits, m.delegations_left, m.depth, m.expires_at, m.revoked_at, m.created_at, m.format, m.exported_as,
			m.external_id, m.issuer_principal,
			coalesce((SELECT jsonb_object_agg(u.limit_key, u.used) FROM limit_usage u WHERE u.mandate_id = m.id), '{}') AS usage
		FROM mandates m JOIN agents a ON a.id = m.holder
		WHERE a.org_id = ? AND (? OR (m.revoked_at IS NULL AND m.expires_at > now()))
		ORDER BY m.depth, m.created_at, m.id`, org, all).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("mandates held in %s: %w", org, err)
	}
	return out, nil
}

// Lock takes mandate id's row lock until tx ends, so two changes of one
// mandate (a replacement and a revocation, say) cannot both see it live.
func (s *Service) Lock(ctx context.Context, tx bun.IDB, id string) error {
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM mandates WHERE id = ? FOR UPDATE`, id); err != nil {
		return fmt.Errorf("lock mandate %s: %w", id, err)
	}
	return nil
}
