package credentials

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// The organizations' trusted roots (trusted_roots): outside keys that
// issue credentials in the name of one of their people.

// trustedRootsOf lists org's trusted roots, revoked ones too, oldest first.
func trustedRootsOf(ctx context.Context, q bun.IDB, org string) ([]TrustedRoot, error) {
	out := []TrustedRoot{}
	err := q.NewRaw(`SELECT principal, human, label, created_by, created_at, active_since, revoked_at
		FROM trusted_roots WHERE org_id = ? ORDER BY created_at, principal`, org).Scan(ctx, &out)
	return out, err
}

// liveRootKeys lists org's live trusted roots' keys, raw.
func liveRootKeys(ctx context.Context, q bun.IDB, org string) ([][]byte, error) {
	var roots [][]byte
	err := q.NewRaw(`SELECT principal FROM trusted_roots WHERE org_id = ? AND revoked_at IS NULL`, org).Scan(ctx, &roots)
	return roots, err
}

// liveRootHuman is the person the live trusted root raw of org stands
// for, "" when it is no live root there.
func liveRootHuman(ctx context.Context, q bun.IDB, org string, raw []byte) (string, error) {
	var humans []string
	err := q.NewRaw(`SELECT human FROM trusted_roots WHERE principal = ? AND org_id = ? AND revoked_at IS NULL`,
		raw, org).Scan(ctx, &humans)
	if err != nil || len(humans) == 0 {
		return "", err
	}
	return humans[0], nil
}

// lockRoot locks org's trusted root raw, if any, until the transaction q
// ends, and reports whether there is one and whether it is live.
func lockRoot(ctx context.Context, q bun.IDB, org string, raw []byte) (exists, live bool, err error) {
	var existing []struct {
		RevokedAt *time.Time `bun:"revoked_at"`
	}
	if err := q.NewRaw(`SELECT revoked_at FROM trusted_roots WHERE org_id = ? AND principal = ? FOR UPDATE`, org, raw).
		Scan(ctx, &existing); err != nil {
		return false, false, err
	}
	if len(existing) == 0 {
		return false, false, nil
	}
	return true, existing[0].RevokedAt == nil, nil
}

// insertTrustedRoot trusts raw in org, for human, as person by.
func insertTrustedRoot(ctx context.Context, q bun.IDB, org string, raw []byte, human string, label *string, by string) error {
	_, err := q.NewRaw(`INSERT INTO trusted_roots (principal, org_id, human, label, created_by) VALUES (?, ?, ?, ?, ?)`,
		raw, org, human, label, by).Exec(ctx)
	return err
}

// reactivateTrustedRoot trusts org's revoked root raw again from now on,
// for human.
func reactivateTrustedRoot(ctx context.Context, q bun.IDB, org string, raw []byte, human string, label *string) error {
	_, err := q.NewRaw(`UPDATE trusted_roots SET human = ?, label = ?, revoked_at = NULL, active_since = now()
		WHERE org_id = ? AND principal = ?`, human, label, org, raw).Exec(ctx)
	return err
}

// countRoots counts org's trusted roots raw, revoked or not (0 or 1).
func countRoots(ctx context.Context, q bun.IDB, org string, raw []byte) (int, error) {
	var found int
	err := q.NewRaw(`SELECT count(*) FROM trusted_roots WHERE principal = ? AND org_id = ?`, raw, org).Scan(ctx, &found)
	return found, err
}

// revokeTrustedRoot stops org trusting its live root raw and returns how
// many it revoked.
func revokeTrustedRoot(ctx context.Context, q bun.IDB, org string, raw []byte) (int64, error) {
	res, err := q.NewRaw(`UPDATE trusted_roots SET revoked_at = now() WHERE org_id = ? AND principal = ? AND revoked_at IS NULL`,
		org, raw).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
