package mandate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/sdk/errs"
)

// The SQL of this package. Every read of a mandate goes through scanMandate,
// over these columns in this order. The credential column (bytes of an
// imported credential) is never read here.
const (
	mandateColumns = `id, parent_id, issuer_kind, issuer, holder, scope, limits, delegations_left, depth,
		expires_at, revoked_at, signature, format, external_id, issuer_principal, created_at`

	getSQL = `SELECT ` + mandateColumns + ` FROM mandates WHERE id = ?`

	insertSQL = `INSERT INTO mandates (id, parent_id, issuer_kind, issuer, holder, scope, limits,
		delegations_left, depth, expires_at, signature, format, external_id, credential, issuer_principal)
		VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?)
		RETURNING created_at`

	// chainSQL walks from the leaf up to MaxDepth+1 parents (one more than a
	// valid chain has, so a deeper one is seen), and joins the org of the
	// root's human issuer and of every holder, the status of every holder and
	// whether the root's issuer is disabled, and the org of the agent $3 that
	// calls (NULL when none is named). Links come root first.
	chainSQL = `WITH RECURSIVE chain AS (
		SELECT ` + mandateColumns + `, 0 AS lvl FROM mandates WHERE id = $1::uuid
		UNION ALL
		SELECT p.id, p.parent_id, p.issuer_kind, p.issuer, p.holder, p.scope, p.limits, p.delegations_left, p.depth,
			p.expires_at, p.revoked_at, p.signature, p.format, p.external_id, p.issuer_principal, p.created_at, c.lvl + 1
		FROM mandates p JOIN chain c ON p.id = c.parent_id
		WHERE c.lvl <= $2
	)
	SELECT c.id, c.parent_id, c.issuer_kind, c.issuer, c.holder, c.scope, c.limits, c.delegations_left, c.depth,
		c.expires_at, c.revoked_at, c.signature, c.format, c.external_id, c.issuer_principal, c.created_at,
		h.id IS NOT NULL AS issuer_is_human, coalesce(h.org_id, '') AS issuer_org, coalesce(a.org_id, '') AS holder_org,
		coalesce((SELECT org_id FROM agents WHERE id = $3), '') AS caller_org,
		coalesce(a.status, '') AS holder_status, h.disabled_at IS NOT NULL AS issuer_disabled
	FROM chain c
	LEFT JOIN humans h ON c.issuer_kind = 'human' AND h.id = c.issuer
	LEFT JOIN agents a ON a.id = c.holder
	ORDER BY c.lvl DESC`

	// subtreeSQL is a mandate and everything delegated under it, itself
	// first. The bound only guards against a cycle the schema cannot make.
	subtreeSQL = `WITH RECURSIVE sub AS (
		SELECT id, 0 AS below FROM mandates WHERE id = ?
		UNION ALL
		SELECT m.id, s.below + 1 FROM mandates m JOIN sub s ON m.parent_id = s.id WHERE s.below <= ?
	) SELECT id FROM sub ORDER BY below, id`

	revokeSQL = `UPDATE mandates SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`

	ensureUsageSQL = `INSERT INTO limit_usage (mandate_id, limit_key) VALUES (?, ?) ON CONFLICT DO NOTHING`
	lockUsageSQL   = `SELECT used::float8 FROM limit_usage WHERE mandate_id = ? AND limit_key = ? FOR UPDATE`
	addUsageSQL    = `UPDATE limit_usage SET used = used + ? WHERE mandate_id = ? AND limit_key = ?`
	usageSQL       = `SELECT mandate_id, limit_key, used::float8 FROM limit_usage WHERE mandate_id = ANY(?::uuid[])`
)

type scanner interface{ Scan(dest ...any) error }

// scanMandate reads one row of mandateColumns, then extra columns into extra.
func scanMandate(r scanner, extra ...any) (*Mandate, error) {
	var (
		m                   Mandate
		parent              uuid.NullUUID
		limits              []byte
		revoked             sql.NullTime
		external, principal sql.NullString
	)
	var scope any = pgdialect.Array(&m.Scope) // database/sql hands over text
	if _, ok := r.(pgx.Rows); ok {
		scope = &m.Scope // pgx decodes the array itself (a chain read ahead)
	}
	dest := append([]any{
		&m.ID, &parent, &m.IssuerKind, &m.Issuer, &m.Holder, scope, &limits,
		&m.DelegationsLeft, &m.Depth, &m.ExpiresAt, &revoked, &m.Signature, &m.Format, &external, &principal,
		&m.CreatedAt,
	}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	if parent.Valid {
		m.ParentID = &parent.UUID
	}
	// Numbers decode as float64, so an integral limit re-encodes as the
	// integer it was signed as (canonical JSON drops the fraction).
	if err := json.Unmarshal(limits, &m.Limits); err != nil {
		return nil, err
	}
	if m.Limits == nil {
		m.Limits = map[string]float64{}
	}
	if revoked.Valid {
		t := revoked.Time.UTC()
		m.RevokedAt = &t
	}
	if external.Valid {
		m.ExternalID = &external.String
	}
	if principal.Valid {
		m.IssuerPrincipal = &principal.String
	}
	m.ExpiresAt = m.ExpiresAt.UTC()
	m.CreatedAt = m.CreatedAt.UTC()
	return &m, nil
}

// insertMandate stores m (already signed) and sets its CreatedAt. It returns
// NotFound when the holder is not an agent.
func insertMandate(ctx context.Context, tx bun.IDB, m *Mandate, credential []byte) error {
	limits, err := json.Marshal(m.Limits)
	if err != nil {
		return errs.Wrap(err, "encode mandate limits")
	}
	var parent, cred any
	if m.ParentID != nil {
		parent = m.ParentID.String()
	}
	if credential != nil {
		cred = credential
	}
	err = tx.QueryRowContext(ctx, insertSQL,
		m.ID.String(), parent, m.IssuerKind, m.Issuer, m.Holder, pgdialect.Array(m.Scope), string(limits),
		m.DelegationsLeft, m.Depth, m.ExpiresAt, m.Signature, m.Format, optional(m.ExternalID), cred,
		optional(m.IssuerPrincipal),
	).Scan(&m.CreatedAt)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == db.ForeignKeyViolation && pe.ConstraintName == "mandates_holder_fkey" {
			return errs.E(errs.NotFound, "agent %s does not exist", m.Holder)
		}
		return errs.Wrap(err, "insert mandate")
	}
	m.CreatedAt = m.CreatedAt.UTC()
	return nil
}

// micro is t in UTC, truncated to the microseconds PostgreSQL keeps, so a
// stored time equals the signed one.
func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// pgArray passes ids as a PostgreSQL array argument.
func pgArray(ids []string) *pgdialect.ArrayValue { return pgdialect.Array(ids) }
