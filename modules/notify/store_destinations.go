package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The rows of notify_destinations: the destinations owners add to their
// organization, their URLs and secrets sealed (sealed.go).

const destinationCols = `id, org_id, notifier, url, secret IS NOT NULL AS has_secret, options::text AS options_json,
	created_by, created_at, disabled_by, disabled_at`

// destRow is a notify_destinations row as destinationCols reads it.
type destRow struct {
	ID          int64      `bun:"id"`
	OrgID       string     `bun:"org_id"`
	Notifier    string     `bun:"notifier"`
	URL         string     `bun:"url"` // sealed
	HasSecret   bool       `bun:"has_secret"`
	OptionsJSON string     `bun:"options_json"`
	CreatedBy   string     `bun:"created_by"`
	CreatedAt   time.Time  `bun:"created_at"`
	DisabledBy  *string    `bun:"disabled_by"`
	DisabledAt  *time.Time `bun:"disabled_at"`
}

// newDestination is a destination as it is stored: url and secret sealed,
// options a JSON object of strings.
type newDestination struct {
	OrgID, Notifier, URL string
	Secret               *string
	OptionsJSON          string
	CreatedBy            string
}

// insertDestination stores d and returns its row. A value the table's
// checks refuse comes back as the database's error (db.CheckViolation).
func insertDestination(ctx context.Context, q bun.IDB, d newDestination) (*destRow, error) {
	var r destRow
	err := q.NewRaw(`INSERT INTO notify_destinations (org_id, notifier, url, secret, options, created_by)
		VALUES (?, ?, ?, ?, ?::jsonb, ?) RETURNING `+destinationCols,
		d.OrgID, d.Notifier, d.URL, d.Secret, d.OptionsJSON, d.CreatedBy).Scan(ctx, &r)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// destinationsOf lists org's destinations, disabled ones included, oldest
// first.
func destinationsOf(ctx context.Context, q bun.IDB, org string) ([]destRow, error) {
	var rows []destRow
	if err := q.NewRaw(`SELECT `+destinationCols+` FROM notify_destinations WHERE org_id = ? ORDER BY id`, org).
		Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("notify.ListDestinations: %w", err)
	}
	return rows, nil
}

// disableDestination disables destination id of org as person by, keeping
// who and when of an earlier disabling, and returns its row; nil when org
// has no such destination.
func disableDestination(ctx context.Context, q bun.IDB, org string, id int64, by string) (*destRow, error) {
	var rows []destRow
	err := q.NewRaw(`UPDATE notify_destinations
		SET disabled_at = coalesce(disabled_at, now()), disabled_by = coalesce(disabled_by, ?)
		WHERE id = ? AND org_id = ? RETURNING `+destinationCols, by, id, org).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("notify.DisableDestination: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// sealedDestination is a destination's sealed URL and secret.
type sealedDestination struct {
	ID     int64   `bun:"id"`
	OrgID  string  `bun:"org_id"`
	URL    string  `bun:"url"`
	Secret *string `bun:"secret"`
}

// sealedDestinations lists every destination's sealed values, of every
// organization, in id order.
func sealedDestinations(ctx context.Context, q bun.IDB) ([]sealedDestination, error) {
	var rows []sealedDestination
	if err := q.NewRaw(`SELECT id, org_id, url, secret FROM notify_destinations ORDER BY id`).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("notify.ResealDestinations: %w", err)
	}
	return rows, nil
}

// resealDestination replaces was's sealed URL and secret with url and
// secret, unless another process changed them since was was read; it
// reports whether it did.
func resealDestination(ctx context.Context, q bun.IDB, was sealedDestination, url string, secret *string) (bool, error) {
	res, err := q.ExecContext(ctx, `UPDATE notify_destinations SET url = ?, secret = ?
		WHERE id = ? AND url = ? AND secret IS NOT DISTINCT FROM ?`, url, secret, was.ID, was.URL, was.Secret)
	if err != nil {
		return false, err
	}
	k, _ := res.RowsAffected()
	return k == 1, nil
}
