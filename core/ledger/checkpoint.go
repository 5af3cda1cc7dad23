package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/mod/sumdb/note"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/metrics"
)

// Checkpoints signs the log's chains (docs/log-checkpoints.md).
type Checkpoints struct {
	// Signer signs with the board's Ed25519 key.
	Signer note.Signer
	// Origin is the prefix of every chain's origin: "<host>/pact-log/".
	Origin string
	// Entries is how much growth takes a checkpoint at once.
	Entries int64
	// Every is at most how long a chain that grew waits for one.
	Every time.Duration
	// Metrics records the integration lags of the entries Take integrates
	// (nil: none).
	Metrics *metrics.Metrics
}

// Signed is a checkpoint the board signed.
type Signed struct {
	ChainKey string `json:"chain_key"`
	Size     int64  `json:"size"`
	Note     string `json:"note"`
}

// dueSQL lists the chains that grew since their last checkpoint by $1
// entries or more, or at all when that checkpoint is older than $2 seconds
// (or there is none), with their size and head. The head row is read as
// it is: the integrator updates both under the chain's lock, so a
// checkpoint signs integrated entries only.
const dueSQL = `SELECT h.chain_key, h.size, h.last_hash FROM entry_chain_heads h
	LEFT JOIN LATERAL (SELECT size, taken_at FROM log_checkpoints c WHERE c.chain_key = h.chain_key
		ORDER BY size DESC LIMIT 1) c ON true
	WHERE h.size > coalesce(c.size, 0)
	  AND (h.size - coalesce(c.size, 0) >= $1 OR c.taken_at IS NULL OR c.taken_at <= now() - make_interval(secs => $2))
	ORDER BY h.chain_key`

// Take signs a checkpoint of every chain that is due and stores it. Two
// boards that sign the same chain at the same size store one: the first.
// It integrates what has committed first, so a checkpoint states every
// entry committed before it began; it never states one not integrated.
func (c *Checkpoints) Take(ctx context.Context, d *db.DB, now time.Time) ([]Signed, error) {
	if _, err := integrate(ctx, d, true, c.Metrics); err != nil {
		return nil, err
	}
	rows, err := d.Pool.Query(ctx, dueSQL, c.Entries, c.Every.Seconds())
	if err != nil {
		return nil, fmt.Errorf("ledger: chains due a checkpoint: %w", err)
	}
	type head struct {
		chain, hash string
		size        int64
	}
	heads, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (head, error) {
		var h head
		return h, r.Scan(&h.chain, &h.size, &h.hash)
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: chains due a checkpoint: %w", err)
	}
	var out []Signed
	for _, h := range heads {
		signed, err := logformat.Sign(logformat.Checkpoint{Origin: c.Origin + h.chain, Size: h.size, Head: h.hash,
			Time: now}, c.Signer)
		if err != nil {
			return out, fmt.Errorf("ledger: sign the checkpoint of %s: %w", h.chain, err)
		}
		tag, err := d.Pool.Exec(ctx, `INSERT INTO log_checkpoints (chain_key, size, head_hash, taken_at, note)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, h.chain, h.size, h.hash, now, signed)
		if err != nil {
			return out, fmt.Errorf("ledger: store the checkpoint of %s: %w", h.chain, err)
		}
		if tag.RowsAffected() == 1 {
			out = append(out, Signed{ChainKey: h.chain, Size: h.size, Note: signed})
		}
	}
	return out, nil
}

// ErrNoCheckpoint is Latest's answer for a chain never checkpointed.
var ErrNoCheckpoint = errors.New("ledger: the chain has no checkpoint")

// Latest is chain's latest signed checkpoint.
func (l *Log) Latest(ctx context.Context, d *db.DB, chain string) (string, error) {
	var signed string
	err := d.Pool.QueryRow(ctx, `SELECT note FROM log_checkpoints WHERE chain_key = $1 ORDER BY size DESC LIMIT 1`,
		chain).Scan(&signed)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNoCheckpoint
	}
	return signed, err
}
