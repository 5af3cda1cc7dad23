package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
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

// page bounds memory: verification holds one page of entries at a time,
// however long the chain.
const page = 1000

type row struct {
	ID           int64     `bun:"id"`
	ChainKey     string    `bun:"chain_key"`
	ProjectID    *string   `bun:"project_id"`
	TaskID       *string   `bun:"task_id"`
	AgentID      *string   `bun:"agent_id"`
	Actor        string    `bun:"actor"`
	MandateChain []string  `bun:"mandate_chain,array"`
	Action       string    `bun:"action"`
	PayloadHash  string    `bun:"payload_hash"`
	Outcome      string    `bun:"outcome"`
	At           time.Time `bun:"at"`
	PrevHash     string    `bun:"prev_hash"`
	Hash         string    `bun:"hash"`
	Content      *string   `bun:"content"`
	Erased       bool      `bun:"erased"`
}

// VerifyChain checks one chain from its first entry: each prev_hash links to
// the entry before, each hash matches the entry's contents, each payload not
// erased matches its payload_hash, and the chain head names the last entry.
// It reads one snapshot, so appends during the run cannot look like damage.
func (l *Log) VerifyChain(ctx context.Context, d *db.DB, chainKey string, progress Progress) (Verdict, error) {
	v := Verdict{ChainKey: chainKey}
	err := d.RunInTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true},
		func(ctx context.Context, tx bun.Tx) error {
			var err error
			v, err = verifyChain(ctx, tx, chainKey, progress)
			if err != nil {
				return fmt.Errorf("ledger: verify chain %s: %w", chainKey, err)
			}
			return nil
		})
	return v, err
}

func verifyChain(ctx context.Context, tx bun.IDB, chainKey string, progress Progress) (Verdict, error) {
	v := Verdict{ChainKey: chainKey}
	prev, last := Genesis, ""
	broken := func(id int64, reason string) (Verdict, error) {
		v.BrokenAt, v.Reason = &id, reason
		return v, nil
	}
	for after := int64(0); ; {
		var rows []row
		err := tx.NewRaw(`SELECT e.id, e.chain_key, e.project_id, e.task_id::text AS task_id, e.agent_id, e.actor,
				e.mandate_chain::text[] AS mandate_chain, e.action, e.payload_hash, e.outcome, e.at,
				e.prev_hash, e.hash, p.content::text AS content, p.erased_at IS NOT NULL AS erased
			FROM entries e JOIN payloads p ON p.id = e.payload_ref
			WHERE e.chain_key = ? AND e.id > ? ORDER BY e.id LIMIT ?`, chainKey, after, page).Scan(ctx, &rows)
		if err != nil {
			return v, fmt.Errorf("ledger: read chain %s: %w", chainKey, err)
		}
		for _, r := range rows {
			if r.PrevHash != prev {
				return broken(r.ID, "prev_hash does not match the previous entry")
			}
			h := hashed{ChainKey: r.ChainKey, ProjectID: r.ProjectID, TaskID: r.TaskID, AgentID: r.AgentID,
				Actor: r.Actor, MandateChain: r.MandateChain, Action: r.Action, PayloadHash: r.PayloadHash,
				Outcome: r.Outcome, At: canon.ISO(r.At), PrevHash: r.PrevHash}
			if h.MandateChain == nil {
				h.MandateChain = []string{}
			}
			sum, err := h.sum()
			if err != nil {
				return v, err
			}
			if sum != r.Hash {
				return broken(r.ID, "entry contents do not match its hash")
			}
			if !r.Erased {
				ok, err := payloadMatches(r.Content, r.PayloadHash)
				if err != nil || !ok {
					return broken(r.ID, "payload does not match payload_hash")
				}
			}
			prev, last = r.Hash, r.Hash
			v.Checked++
			after = r.ID
		}
		if progress != nil && len(rows) > 0 {
			progress(len(rows))
		}
		if len(rows) < page {
			break
		}
	}
	if v.Checked > 0 {
		var head string
		err := tx.NewRaw(`SELECT last_hash FROM entry_chain_heads WHERE chain_key = ?`, chainKey).Scan(ctx, &head)
		if err != nil && err != sql.ErrNoRows {
			return v, err
		}
		if head != last {
			v.Reason = "chain head does not match the last entry (entries missing?)"
			return v, nil
		}
	}
	v.OK = true
	return v, nil
}

func payloadMatches(content *string, want string) (bool, error) {
	if content == nil {
		return false, nil
	}
	tree, err := canon.Decode([]byte(*content))
	if err != nil {
		return false, err
	}
	b, err := canon.Marshal(tree)
	if err != nil {
		return false, err
	}
	return sha256hex(b) == want, nil
}

// ChainKeys returns the chains of organization org, in key order: its
// projects' chains and its system chain, those that have entries.
func (l *Log) ChainKeys(ctx context.Context, d bun.IDB, org string) ([]string, error) {
	var keys []string
	err := d.NewRaw(`SELECT h.chain_key FROM entry_chain_heads h
		WHERE h.chain_key IN (SELECT id FROM projects WHERE org_id = ?)
		   OR h.chain_key = (SELECT system_chain FROM orgs WHERE id = ?)
		ORDER BY h.chain_key`, org, org).Scan(ctx, &keys)
	return keys, err
}

// CountEntries returns how many entries organization org has ("" for all),
// for progress bars.
func (l *Log) CountEntries(ctx context.Context, d bun.IDB, org string) (int64, error) {
	var n int64
	err := d.NewRaw(`SELECT count(*) FROM entries WHERE ? = '' OR org_id = ?`, org, org).Scan(ctx, &n)
	return n, err
}

// VerifyOrg verifies every chain of organization org. An organization with
// no entries has no verdicts.
func (l *Log) VerifyOrg(ctx context.Context, d *db.DB, org string, progress Progress) ([]Verdict, error) {
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
