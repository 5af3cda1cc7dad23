package credentials

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The outside ids minted for mandates (credential_links), the revoked ones
// (credential_revocations) and each format's list version
// (credential_revocation_version).

// insertLink records that the outside id of format was minted for mandate.
func insertLink(ctx context.Context, q bun.IDB, format, id, mandate string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO credential_links (format, external_id, mandate_id) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, format, id, mandate)
	return err
}

// revokeLinks puts every outside id minted for a mandate of mandates on its
// format's list, until the mandate's expiry, and bumps the version of each
// list that grew.
func revokeLinks(ctx context.Context, q bun.IDB, mandates []string) error {
	_, err := q.ExecContext(ctx, `WITH added AS (
			INSERT INTO credential_revocations (external_id, format, expires_at)
			SELECT l.external_id, l.format, md.expires_at FROM credential_links l JOIN mandates md ON md.id = l.mandate_id
			WHERE l.mandate_id = ANY(?::uuid[])
			ON CONFLICT (external_id) DO NOTHING RETURNING format)
		UPDATE credential_revocation_version SET version = version + 1
		WHERE format IN (SELECT DISTINCT format FROM added)`, pgdialect.Array(mandates))
	return err
}

// revocationVersion is format's list version.
func revocationVersion(ctx context.Context, q bun.IDB, format string) (int64, error) {
	var version int64
	err := q.NewRaw(`SELECT version FROM credential_revocation_version WHERE format = ?`, format).Scan(ctx, &version)
	return version, err
}

// revokedIDs lists format's revoked outside ids not yet expired, sorted.
func revokedIDs(ctx context.Context, q bun.IDB, format string) ([]string, error) {
	var revoked []string
	err := q.NewRaw(`SELECT external_id FROM credential_revocations WHERE format = ? AND expires_at > now()
		ORDER BY external_id`, format).Scan(ctx, &revoked)
	return revoked, err
}

// formatStatuses is each format's list version and count of unexpired
// revoked ids, tenuo then biscuit.
func formatStatuses(ctx context.Context, q bun.IDB) ([]FormatStatus, error) {
	out := []FormatStatus{}
	err := q.NewRaw(`SELECT f.format, coalesce(v.version, 0) AS version,
		(SELECT count(*) FROM credential_revocations r WHERE r.format = f.format AND r.expires_at > now()) AS revoked_count
		FROM (VALUES ('tenuo', 1), ('biscuit', 2)) AS f (format, position)
		LEFT JOIN credential_revocation_version v ON v.format = f.format ORDER BY f.position`).Scan(ctx, &out)
	return out, err
}

// revokedMandates lists the mandates among mandates some outside id minted
// for which is revoked.
func revokedMandates(ctx context.Context, q bun.IDB, mandates []string) ([]string, error) {
	var published []string
	err := q.NewRaw(`SELECT DISTINCT l.mandate_id::text FROM credential_links l
		JOIN credential_revocations r ON r.external_id = l.external_id
		WHERE l.mandate_id = ANY(?::uuid[])`, pgdialect.Array(mandates)).Scan(ctx, &published)
	return published, err
}
