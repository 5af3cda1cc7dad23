package pacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The seats of a pact (pact_seats) and their cursors.

// seatRow is a seat as stored.
type seatRow struct {
	PactID      string     `bun:"pact_id"`
	Key         string     `bun:"key"`
	DisplayName string     `bun:"display_name"`
	Prefix      string     `bun:"prefix"`
	AgentID     *string    `bun:"agent_id"`
	HumanID     *string    `bun:"human_id"`
	InvitedBy   string     `bun:"invited_by"`
	JoinedAt    *time.Time `bun:"joined_at"`
	RemovedAt   *time.Time `bun:"removed_at"`
	PausedAt    *time.Time `bun:"paused_at"`
	PausedBy    *string    `bun:"paused_by"`
	Handshake   string     `bun:"handshake"`
	NextNumber  int        `bun:"next_number"`
	ReadUpto    int64      `bun:"read_upto"`
	WriteUpto   int64      `bun:"write_upto"`
}

const seatColumns = `pact_id, key, display_name, prefix, agent_id, human_id, invited_by, joined_at, removed_at,
	paused_at, paused_by, handshake, next_number, read_upto, write_upto`

// seats reads the seats of pact, in the order they were made.
func seats(ctx context.Context, tx bun.IDB, pact string) ([]seatRow, error) {
	var out []seatRow
	err := tx.NewRaw(`SELECT `+seatColumns+` FROM pact_seats WHERE pact_id = ? ORDER BY invited_at, key`, pact).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the seats of %s: %w", pact, err)
	}
	return out, nil
}

// seatsOf reads the seats of every pact in ids in one statement, each
// pact's in the order they were made.
func seatsOf(ctx context.Context, tx bun.IDB, ids []string) (map[string][]seatRow, error) {
	var rows []seatRow
	err := tx.NewRaw(`SELECT `+seatColumns+` FROM pact_seats WHERE pact_id::text = ANY(?) ORDER BY pact_id, invited_at, key`,
		pgdialect.Array(ids)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the seats of %d pacts: %w", len(ids), err)
	}
	out := make(map[string][]seatRow, len(ids))
	for _, r := range rows {
		out[r.PactID] = append(out[r.PactID], r)
	}
	return out, nil
}

// seatOf reads a's seat in pact (nil when it has none), locking it when
// lock is set: a seat's writes are serialized on its row, which keeps its
// numbers gap-free and its rate count exact.
func seatOf(ctx context.Context, tx bun.IDB, pact string, a Actor, lock bool) (*seatRow, error) {
	col, id := actorColumn(a)
	q := `SELECT ` + seatColumns + ` FROM pact_seats WHERE pact_id = ? AND ` + col + ` = ?`
	if lock {
		q += ` FOR NO KEY UPDATE`
	}
	var s seatRow
	if err := tx.NewRaw(q, pact, id).Scan(ctx, &s); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("pacts: read the seat of %s in %s: %w", a, pact, err)
	}
	return &s, nil
}

// pauseSeats reads, locked, agent's seat in pact and the seat key (one row
// when they are the same, fewer when either is missing). Both rows are
// locked in one statement in key order, so two agents pausing each other
// at once wait for one another instead of deadlocking.
func pauseSeats(ctx context.Context, tx bun.IDB, pact, agent, key string) ([]seatRow, error) {
	var out []seatRow
	err := tx.NewRaw(`SELECT `+seatColumns+` FROM pact_seats WHERE pact_id = ? AND (agent_id = ? OR key = ?)
		ORDER BY key FOR NO KEY UPDATE`, pact, agent, key).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("pacts: read the seats of agent:%s and %s in %s: %w", agent, key, pact, err)
	}
	return out, nil
}

// setSeatPaused pauses (keeping an earlier pause's time) or wakes seat key
// of pact as by, reporting false when it has no such seat or it was
// removed. The pause's holder is by, so a later call can tell a person's
// pause from an agent's.
func setSeatPaused(ctx context.Context, tx bun.IDB, pact, key, by string, paused bool) (bool, error) {
	set := `paused_at = NULL, paused_by = ?`
	if paused {
		set = `paused_at = coalesce(paused_at, clock_timestamp()), paused_by = ?`
	}
	res, err := tx.ExecContext(ctx, `UPDATE pact_seats SET `+set+` WHERE pact_id = ? AND key = ? AND removed_at IS NULL`, by, pact, key)
	if err != nil {
		return false, fmt.Errorf("pacts: pause %s in %s: %w", key, pact, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("pacts: pause %s in %s: %w", key, pact, err)
	}
	return n > 0, nil
}

// actorColumn is the seat column that names a of its kind, and its value.
func actorColumn(a Actor) (column, id string) {
	if a.Agent != "" {
		return "agent_id", a.Agent
	}
	return "human_id", a.Human
}

// takenSeat is a seat's key and prefix, which no other seat of its pact
// takes, and whether it still counts (not removed).
type takenSeat struct {
	Key    string `bun:"key"`
	Prefix string `bun:"prefix"`
	Live   bool   `bun:"live"`
}

// takenSeats reads the keys and prefixes of pact's seats, removed ones
// included.
func takenSeats(ctx context.Context, tx bun.IDB, pact string) ([]takenSeat, error) {
	var out []takenSeat
	if err := tx.NewRaw(`SELECT key, prefix, removed_at IS NULL AS live FROM pact_seats WHERE pact_id = ?`,
		pact).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("pacts: read the seats of %s: %w", pact, err)
	}
	return out, nil
}

// insertSeat stores in's seat in pact, invited by by and joined at
// joinedAt (nil: waiting), with its empty zone. Its error is the
// database's, for the caller to word as a refusal.
func insertSeat(ctx context.Context, tx bun.IDB, pact, by string, in SeatInput, joinedAt *time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO pact_seats (pact_id, key, display_name, prefix, agent_id, human_id, invited_by, joined_at)
		VALUES (?, ?, ?, ?, nullif(?, ''), nullif(?, ''), ?, ?);
		INSERT INTO pact_sections (pact_id, seat_key) VALUES (?, ?)`,
		pact, in.Key, in.DisplayName, in.Prefix, in.Agent, in.Human, by, joinedAt, pact, in.Key)
	return err
}

// joinSeat marks seat key of pact joined at at.
func joinSeat(ctx context.Context, tx bun.IDB, pact, key string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE pact_seats SET joined_at = ? WHERE pact_id = ? AND key = ?`,
		at, pact, key); err != nil {
		return fmt.Errorf("pacts: join %s: %w", pact, err)
	}
	return nil
}

// startCursors sets every seat of pact as having read and written up to
// the feed row feed (an id): a new pact's seats start there.
func startCursors(ctx context.Context, tx bun.IDB, pact string, feed int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE pact_seats SET write_upto = ?, read_upto = ? WHERE pact_id = ?`, feed, feed, pact); err != nil {
		return fmt.Errorf("pacts: set the cursors of %s: %w", pact, err)
	}
	return nil
}

// markRead moves a's read cursor in pact to the feed row cursor (an id)
// and marks read the answers to a's decisions, as a (migration 017's
// triggers check who).
func markRead(ctx context.Context, tx bun.IDB, a Actor, pact string, cursor int64) error {
	col, id := actorColumn(a)
	_, err := tx.ExecContext(ctx, `SELECT set_config('pact.actor', ?, true);
		UPDATE pact_seats SET read_upto = greatest(read_upto, ?)
		WHERE pact_id = ? AND `+col+` = ? AND removed_at IS NULL AND joined_at IS NOT NULL;
		UPDATE pact_decisions SET read_at = clock_timestamp()
		WHERE pact_id = ? AND raised_by = ? AND answer IS NOT NULL AND read_at IS NULL`,
		a.String(), cursor, pact, id, pact, a.String())
	if err != nil {
		return fmt.Errorf("pacts: mark %s read by %s: %w", pact, a, err)
	}
	return nil
}

// removeSeat marks seat key of pact removed at at by by; false when it
// has no such seat, or it was removed already.
func removeSeat(ctx context.Context, tx bun.IDB, pact, key, by string, at time.Time) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE pact_seats SET removed_at = ?, removed_by = ? WHERE pact_id = ? AND key = ? AND removed_at IS NULL`,
		at, by, pact, key)
	if err != nil {
		return false, fmt.Errorf("pacts: remove %s from %s: %w", key, pact, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// liveSeats counts the joined, unremoved seats of pact.
func liveSeats(ctx context.Context, tx bun.IDB, pact string) (int, error) {
	var n int
	if err := tx.NewRaw(`SELECT count(*) FROM pact_seats WHERE pact_id = ? AND removed_at IS NULL AND joined_at IS NOT NULL`,
		pact).Scan(ctx, &n); err != nil {
		return 0, fmt.Errorf("pacts: count the seats of %s: %w", pact, err)
	}
	return n, nil
}
