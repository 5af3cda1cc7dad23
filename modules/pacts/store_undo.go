package pacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
)

// writeSection replaces the body of seat key's zone in pact as by, with
// its feed row feed, and answers the body it replaced and the zone's
// version after the write. The row is locked by the subquery first, so the
// replaced body is the one this write overwrote.
func writeSection(ctx context.Context, tx bun.IDB, pact, key, body, by string, feed int64) (string, int, error) {
	var out struct {
		Old     string `bun:"old"`
		Version int    `bun:"version"`
	}
	err := tx.NewRaw(`UPDATE pact_sections s SET body = ?, version = s.version + 1, updated_at = clock_timestamp(),
		updated_by = ?, feed_id = ?
		FROM (SELECT body FROM pact_sections WHERE pact_id = ? AND seat_key = ? FOR UPDATE) o
		WHERE s.pact_id = ? AND s.seat_key = ? RETURNING o.body AS old, s.version`,
		body, by, feed, pact, key, pact, key).Scan(ctx, &out)
	if err != nil {
		return "", 0, fmt.Errorf("pacts: write section %s of %s: %w", key, pact, err)
	}
	return out.Old, out.Version, nil
}

// sectionNow reads, locked, seat key's zone in pact: its body and version
// (found false when the pact has no such zone).
func sectionNow(ctx context.Context, tx bun.IDB, pact, key string) (body string, version int, found bool, err error) {
	var out struct {
		Body    string `bun:"body"`
		Version int    `bun:"version"`
	}
	err = tx.NewRaw(`SELECT body, version FROM pact_sections WHERE pact_id = ? AND seat_key = ? FOR UPDATE`, pact, key).Scan(ctx, &out)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("pacts: read section %s of %s: %w", key, pact, err)
	}
	return out.Body, out.Version, true, nil
}

// writeHandshake replaces seat key's handshake note in pact and answers the
// note it replaced.
func writeHandshake(ctx context.Context, tx bun.IDB, pact, key, note string) (string, error) {
	var old string
	err := tx.NewRaw(`UPDATE pact_seats s SET handshake = ?
		FROM (SELECT handshake FROM pact_seats WHERE pact_id = ? AND key = ? FOR NO KEY UPDATE) o
		WHERE s.pact_id = ? AND s.key = ? RETURNING o.handshake`, note, pact, key, pact, key).Scan(ctx, &old)
	if err != nil {
		return "", fmt.Errorf("pacts: write the handshake of %s: %w", key, err)
	}
	return old, nil
}

// seatNow reads, locked, seat key of pact (nil when there is none).
func seatNow(ctx context.Context, tx bun.IDB, pact, key string) (*seatRow, error) {
	var s seatRow
	err := tx.NewRaw(`SELECT `+seatColumns+` FROM pact_seats WHERE pact_id = ? AND key = ? FOR NO KEY UPDATE`, pact, key).Scan(ctx, &s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pacts: read seat %s of %s: %w", key, pact, err)
	}
	return &s, nil
}
