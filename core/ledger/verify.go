package ledger

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/db"
)

// Verdict is the result of verifying one chain.
type Verdict struct {
	ChainKey string `json:"chain_key"`
	OK       bool   `json:"ok"`
	Checked  int64  `json:"checked"`
	// BrokenAt is the first entry that fails, or nil when the chain is intact
	// or only its head is wrong.
	BrokenAt *int64 `json:"broken_at"`
	Reason   string `json:"reason,omitempty"`
}

// Progress is told how many entries were checked since its last call.
type Progress func(checked int)

// page is how many checked entries each progress call reports (the last
// call, the rest).
const page = 1000

// batch is how many rows one query reads. Memory stays bounded whatever the
// batch: rows are checked as they arrive, and pgx holds no more of them than
// its read buffer. A batch this size lets PostgreSQL plan for much of a chain
// at once (a hash join and one sort when the chain is most of the log, the
// chain's index otherwise), while a broken entry still leaves at most one
// batch to read and drop; a cursor's FETCH would first store its rows.
const batch = 10000

// chainRows reads the entries of chain $1 after place $2, in their places'
// order. The chain key is not read back: it is the parameter, and equality
// of text is equality of bytes.
const chainRows = `SELECT e.id, e.project_id, e.task_id, e.agent_id, e.actor, e.mandate_chain, e.action,
		e.payload_hash, e.outcome, e.at, pl.prev_hash, pl.hash, p.content, p.erased_at IS NOT NULL, pl.seq
	FROM entry_places pl JOIN entries e ON e.id = pl.entry_id JOIN payloads p ON p.id = e.payload_ref
	WHERE pl.chain_key = $1 AND pl.seq > $2 ORDER BY pl.seq LIMIT $3`

// VerifyChain checks one chain from its first entry: each prev_hash links to
// the entry before, each hash matches the entry's contents, each payload not
// erased matches its payload_hash, and the chain head names the last entry.
// It first integrates what has committed (Integrate, waiting for another
// integrator of the chain), then reads one snapshot, so appends during the
// run cannot look like damage.
//
// It reads with pgx rather than bun and checks each row in the driver's
// buffer, in the binary format: scanning rows into structs by reflection,
// and the text format, cost more than the hashing (docs/benchmarks.md).
func (l *Log) VerifyChain(ctx context.Context, d *db.DB, chainKey string, progress Progress) (Verdict, error) {
	v := Verdict{ChainKey: chainKey}
	if _, err := l.Integrate(ctx, d, true); err != nil {
		return v, err
	}
	err := pgx.BeginTxFunc(ctx, d.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			var err error
			v, err = verifyChain(ctx, tx, chainKey, batch, progress)
			if err != nil {
				return fmt.Errorf("ledger: verify chain %s: %w", chainKey, err)
			}
			return nil
		})
	return v, err
}

func verifyChain(ctx context.Context, tx pgx.Tx, chainKey string, size int, progress Progress) (Verdict, error) {
	v := Verdict{ChainKey: chainKey}
	c := newChecker(chainKey)
	// Every column in binary, which the server writes and the checker reads
	// without text conversions, except the payload: jsonb's text is what gets
	// re-encoded. Binary results need the extended protocol and the rows'
	// description, which pgx caches per connection (one round trip, not two):
	// chainRows is a constant, so its description cannot change under the
	// cache.
	formats := pgx.QueryResultFormats{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1}
	// size is batch but in tests, which read short chains in many queries.
	for after, n := int64(0), size; n == size; {
		rows, err := tx.Query(ctx, chainRows, pgx.QueryExecModeCacheDescribe, formats, chainKey, after, size)
		if err != nil {
			return v, fmt.Errorf("ledger: read chain %s: %w", chainKey, err)
		}
		for n = 0; rows.Next(); n++ {
			id, reason, err := c.check(rows.RawValues())
			if err != nil || reason != "" {
				rows.Close()
				if err != nil {
					return v, fmt.Errorf("ledger: entry %d of chain %s: %w", id, chainKey, err)
				}
				v.BrokenAt, v.Reason = &id, reason
				return v, nil
			}
			if v.Checked++; v.Checked%page == 0 && progress != nil {
				progress(page)
			}
			after = int64(binary.BigEndian.Uint64(rows.RawValues()[14]))
		}
		if rows.Close(); rows.Err() != nil {
			return v, fmt.Errorf("ledger: read chain %s: %w", chainKey, rows.Err())
		}
	}
	if rest := int(v.Checked % page); rest > 0 && progress != nil {
		progress(rest)
	}
	// Every entry of the chain is placed or still queued: one in neither
	// was left out of the chain.
	var outside *int64
	err := tx.QueryRow(ctx, `SELECT min(e.id) FROM entries e WHERE e.chain_key = $1
		AND NOT EXISTS (SELECT 1 FROM entry_places pl WHERE pl.entry_id = e.id)
		AND NOT EXISTS (SELECT 1 FROM entry_queue q WHERE q.entry_id = e.id)`, chainKey).Scan(&outside)
	if err != nil {
		return v, fmt.Errorf("ledger: entries outside chain %s: %w", chainKey, err)
	}
	if outside != nil {
		v.BrokenAt, v.Reason = outside, brokenOutside
		return v, nil
	}
	if v.Checked > 0 {
		var head string
		err := tx.QueryRow(ctx, `SELECT last_hash FROM entry_chain_heads WHERE chain_key = $1`, chainKey).Scan(&head)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return v, fmt.Errorf("ledger: read the head of chain %s: %w", chainKey, err)
		}
		if head != string(c.prev) {
			v.Reason = "chain head does not match the last entry (entries missing?)"
			return v, nil
		}
	}
	v.OK = true
	return v, nil
}

// ChainKeys returns the chains of organization org, in key order: its
// projects' chains and its system chain, those that have entries, placed
// or queued.
func (l *Log) ChainKeys(ctx context.Context, d bun.IDB, org string) ([]string, error) {
	var keys []string
	err := d.NewRaw(`SELECT h.chain_key FROM (SELECT chain_key FROM entry_chain_heads
			UNION SELECT chain_key FROM entry_queue) h
		WHERE h.chain_key IN (SELECT id FROM projects WHERE org_id = ?)
		   OR h.chain_key = (SELECT system_chain FROM orgs WHERE id = ?)
		ORDER BY h.chain_key`, org, org).Scan(ctx, &keys)
	return keys, err
}

// ChainSize is one chain of an organization and how many entries it holds.
type ChainSize struct {
	ChainKey string `json:"chain_key" doc:"The chain: a project's id, or the organization's system chain"`
	Entries  int64  `json:"entries" doc:"How many entries it holds"`
}

// Chains returns organization org's chains, by key, with their sizes, so a
// verifier can check them one at a time and show its progress.
func (l *Log) Chains(ctx context.Context, d bun.IDB, org string) ([]ChainSize, error) {
	keys, err := l.ChainKeys(ctx, d, org)
	if err != nil || len(keys) == 0 {
		return []ChainSize{}, err
	}
	out := []ChainSize{}
	err = d.NewRaw(`SELECT k AS chain_key, (SELECT count(*) FROM entries e WHERE e.chain_key = k) AS entries
		FROM unnest(?::text[]) AS k ORDER BY k`, pgdialect.Array(keys)).Scan(ctx, &out)
	return out, err
}

// CountEntries returns how many entries organization org has ("" for all),
// for progress bars.
func (l *Log) CountEntries(ctx context.Context, d bun.IDB, org string) (int64, error) {
	var n int64
	err := d.NewRaw(`SELECT count(*) FROM entries WHERE ? = '' OR org_id = ?`, org, org).Scan(ctx, &n)
	return n, err
}

// ChainLength returns how many entries chain holds, for progress bars.
func (l *Log) ChainLength(ctx context.Context, d bun.IDB, chain string) (int64, error) {
	var n int64
	err := d.NewRaw(`SELECT coalesce((SELECT size FROM entry_chain_heads WHERE chain_key = ?), 0)`, chain).Scan(ctx, &n)
	return n, err
}

// VerifyOrg verifies every chain of organization org. An organization with
// no entries has no verdicts.
func (l *Log) VerifyOrg(ctx context.Context, d *db.DB, org string, progress Progress) ([]Verdict, error) {
	if _, err := l.Integrate(ctx, d, true); err != nil {
		return nil, err
	}
	keys, err := l.ChainKeys(ctx, d, org)
	if err != nil {
		return nil, fmt.Errorf("ledger: chains of %s: %w", org, err)
	}
	out := []Verdict{}
	for _, k := range keys {
		v, err := l.VerifyChain(ctx, d, k, progress)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// VerifyAll verifies every organization's chains, keyed by organization id.
func (l *Log) VerifyAll(ctx context.Context, d *db.DB, progress Progress) (map[string][]Verdict, error) {
	var orgs []string
	if err := d.NewRaw(`SELECT id FROM orgs ORDER BY id`).Scan(ctx, &orgs); err != nil {
		return nil, fmt.Errorf("ledger: list organizations: %w", err)
	}
	out := make(map[string][]Verdict, len(orgs))
	for _, o := range orgs {
		vs, err := l.VerifyOrg(ctx, d, o, progress)
		if err != nil {
			return nil, err
		}
		out[o] = vs
	}
	return out, nil
}
