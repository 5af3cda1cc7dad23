package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/logformat"
)

// Scope is what a bundle holds: one organization's chains, or one
// project's.
type Scope struct {
	OrgID     string
	ProjectID string
}

func (s Scope) String() string {
	if s.ProjectID != "" {
		return "project:" + s.ProjectID
	}
	return "org:" + s.OrgID
}

// Exported counts what Export wrote.
type Exported struct {
	Chains      int   `json:"chains"`
	Entries     int64 `json:"entries"`
	Checkpoints int   `json:"checkpoints"`
}

// exportRows reads chain $1's entries after place $2, in their places'
// order, with their payloads.
const exportRows = `SELECT e.id, e.org_id, e.project_id, e.task_id::text, e.agent_id, e.actor, e.mandate_chain::text[],
		e.action, e.payload_hash, e.outcome, e.at, pl.prev_hash, pl.hash, p.content::text, p.erased_at IS NOT NULL, pl.seq
	FROM entry_places pl JOIN entries e ON e.id = pl.entry_id JOIN payloads p ON p.id = e.payload_ref
	WHERE pl.chain_key = $1 AND pl.seq > $2 ORDER BY pl.seq LIMIT $3`

// Export writes a bundle of scope's chains to w (docs/log-checkpoints.md,
// "Bundles"), from one snapshot of the database, streaming: memory stays
// flat whatever the size. vkeys are the board's verifier keys; progress is
// told of the entries written.
func (l *Log) Export(ctx context.Context, d *db.DB, scope Scope, vkeys []string, w *logformat.Writer,
	progress Progress) (Exported, error) {
	var out Exported
	if _, err := l.Integrate(ctx, d, true); err != nil {
		return out, fmt.Errorf("ledger: export %s: %w", scope, err)
	}
	err := pgx.BeginTxFunc(ctx, d.Pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			chains := []string{scope.ProjectID}
			if scope.ProjectID == "" {
				rows, err := tx.Query(ctx, `SELECT h.chain_key FROM entry_chain_heads h
					WHERE h.chain_key IN (SELECT id FROM projects WHERE org_id = $1)
					   OR h.chain_key = (SELECT system_chain FROM orgs WHERE id = $1) ORDER BY h.chain_key`, scope.OrgID)
				if err != nil {
					return err
				}
				if chains, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
					return err
				}
			}
			if err := w.Write(logformat.Record{Kind: logformat.KindHeader, Format: logformat.Format, Scope: scope.String(),
				ExportedAt: canon.ISO(l.now())}); err != nil {
				return err
			}
			for _, k := range vkeys {
				if err := w.Write(logformat.Record{Kind: logformat.KindKey, VerifierKey: k}); err != nil {
					return err
				}
			}
			n, err := exportCheckpoints(ctx, tx, chains, w)
			if err != nil {
				return err
			}
			out.Checkpoints = n
			for _, c := range chains {
				written, err := exportChain(ctx, tx, c, w, progress)
				if err != nil {
					return fmt.Errorf("chain %s: %w", c, err)
				}
				if written > 0 {
					out.Chains++
				}
				out.Entries += written
			}
			if err := w.Write(logformat.Record{Kind: logformat.KindEnd, Entries: out.Entries, Chains: int64(out.Chains)}); err != nil {
				return err
			}
			return w.Flush()
		})
	if err != nil {
		return out, fmt.Errorf("ledger: export %s: %w", scope, err)
	}
	return out, nil
}

func exportCheckpoints(ctx context.Context, tx pgx.Tx, chains []string, w *logformat.Writer) (int, error) {
	rows, err := tx.Query(ctx, `SELECT chain_key, note FROM log_checkpoints WHERE chain_key = ANY($1)
		ORDER BY chain_key, size`, chains)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var chain, signed string
		if err := rows.Scan(&chain, &signed); err != nil {
			return n, err
		}
		if err := w.Write(logformat.Record{Kind: logformat.KindCheckpoint, ChainKey: chain, Note: signed}); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// exportChain writes chain's entries in order, a batch per query.
func exportChain(ctx context.Context, tx pgx.Tx, chain string, w *logformat.Writer, progress Progress) (int64, error) {
	var written int64
	for after, n := int64(0), batch; n == batch; {
		rows, err := tx.Query(ctx, exportRows, chain, after, batch)
		if err != nil {
			return written, err
		}
		for n = 0; rows.Next(); n++ {
			var e logformat.Entry
			var at time.Time
			var payload *string
			if err := rows.Scan(&e.ID, &e.OrgID, &e.ProjectID, &e.TaskID, &e.AgentID, &e.Actor, &e.MandateChain,
				&e.Action, &e.PayloadHash, &e.Outcome, &at, &e.PrevHash, &e.Hash, &payload, &e.Erased, &after); err != nil {
				rows.Close()
				return written, err
			}
			written++
			e.Position, e.At = written, canon.ISO(at)
			if e.MandateChain == nil {
				e.MandateChain = []string{}
			}
			if !e.Erased && payload != nil {
				e.Payload = json.RawMessage(*payload)
			}
			if err := w.Write(logformat.Record{Kind: logformat.KindEntry, ChainKey: chain, Entry: &e}); err != nil {
				rows.Close()
				return written, err
			}
			if written%page == 0 && progress != nil {
				progress(page)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return written, err
		}
	}
	if rest := int(written % page); rest > 0 && progress != nil {
		progress(rest)
	}
	return written, nil
}
